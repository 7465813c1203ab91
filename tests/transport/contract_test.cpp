// The behaviour every Transport must have, as transport.h promises it.
#include "transport/contract.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <map>
#include <thread>

#include <gmock/gmock.h>

#include "harel/errors.h"
#include "support/thrown.h"

namespace harel::testing {
namespace {

using namespace std::chrono_literals;
using std::chrono::milliseconds;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

// Long enough never to expire within a test.
constexpr milliseconds kLong = 30s;
// Short enough to wait out: lease expiry and delays.
constexpr milliseconds kShort = 200ms;

Event make_event(const std::string& id) {
  Event ev;
  ev.id = id;
  ev.kind = "Go";
  ev.data = {{"k", id}};
  return ev;
}

Publication message(const std::string& group, const std::string& id,
                    std::optional<std::string> dedupe_id = std::nullopt) {
  return {group, make_event(id), std::move(dedupe_id)};
}

std::vector<std::string> event_ids(const std::vector<Lease>& leases) {
  std::vector<std::string> out;
  for (const Lease& l : leases) out.push_back(l.event.id);
  return out;
}

// Claims until something comes or `within` has passed (for timed returns).
std::vector<Lease> claim_within(Transport& t, milliseconds within, milliseconds visibility = kLong) {
  const auto deadline = std::chrono::steady_clock::now() + within;
  for (;;) {
    auto leases = t.claim("w", visibility);
    if (!leases.empty() || std::chrono::steady_clock::now() > deadline) return leases;
    std::this_thread::sleep_for(10ms);
  }
}

// The one lease a claim must return now.
Lease claim_one(Transport& t, milliseconds visibility = kLong) {
  auto leases = t.claim("w", visibility);
  if (leases.size() != 1) throw std::runtime_error("expected one lease, got " + std::to_string(leases.size()));
  return std::move(leases.front());
}

// ------------------------------------------------------------------ order

TEST_P(TransportContract, AGroupsMessagesComeInPublishOrderEachAfterTheOneBeforeIsAcked) {
  transport().publish(std::vector{message("g", "a"), message("g", "b"), message("g", "c")});
  for (const char* id : {"a", "b", "c"}) {
    const Lease lease = claim_one(transport());
    EXPECT_EQ(lease.event.id, id);
    EXPECT_EQ(lease.group_id, "g");
    EXPECT_EQ(lease.attempts, 0);
    EXPECT_THAT(transport().claim("w", kLong), IsEmpty()) << "a second claim while " << id << " is leased";
    EXPECT_TRUE(transport().ack(lease));
  }
  EXPECT_THAT(transport().claim("w", kLong), IsEmpty());
}

TEST_P(TransportContract, TheEventComesBackAsPublished) {
  Event ev = make_event("e1");
  ev.created_time = "2025-12-01T10:00:00.123456Z";
  ev.data = {{"order", {{"id", 7}, {"items", {1, 2.5, "x", nullptr}}}}};
  ev.extra = {{"future_field", "kept"}};
  transport().publish("g", ev);  // the convenience overload
  const Lease lease = claim_one(transport());
  EXPECT_EQ(lease.event, ev);
  EXPECT_EQ(lease.group_id, "g");
  EXPECT_FALSE(lease.token.empty());
}

TEST_P(TransportContract, ALeasedGroupHoldsBackOnlyItself) {
  transport().publish(std::vector{message("g1", "a1"), message("g1", "a2"), message("g2", "b1")});
  EXPECT_EQ(claim_one(transport()).event.id, "a1");
  EXPECT_EQ(claim_one(transport()).event.id, "b1");  // not a2: a1 is leased
  EXPECT_THAT(transport().claim("w", kLong, 10), IsEmpty());
}

TEST_P(TransportContract, AClaimOfSeveralReturnsSeveralGroupsOldestFirst) {
  const std::vector published{message("g1", "a1"), message("g2", "b1"), message("g1", "a2"), message("g3", "c1"),
                              message("g4", "d1")};
  transport().publish(published);
  EXPECT_THAT(event_ids(transport().claim("w", kLong, 2)), ElementsAre("a1", "b1"));
  // a2 waits for a1, which is leased.
  EXPECT_THAT(event_ids(transport().claim("w", kLong, 10)), ElementsAre("c1", "d1"));
}

// ------------------------------------------------------------------ leases

TEST_P(TransportContract, AnExpiredLeaseReturnsTheMessageWithOneMoreAttempt) {
  transport().publish(std::vector{message("g", "a"), message("g", "b")});
  const Lease first = claim_one(transport(), kShort);
  EXPECT_EQ(first.attempts, 0);
  EXPECT_THAT(transport().claim("w", kLong), IsEmpty()) << "hidden for its visibility";

  const auto again = claim_within(transport(), 5s);
  ASSERT_EQ(again.size(), 1u);
  EXPECT_EQ(again[0].event.id, "a");  // still the group's head: b waits
  EXPECT_EQ(again[0].attempts, 1);
  EXPECT_NE(again[0].token, first.token);
  EXPECT_FALSE(transport().ack(first)) << "the expired lease's fate is the newer holder's";
  EXPECT_TRUE(transport().ack(again[0]));
  EXPECT_EQ(claim_one(transport()).event.id, "b");
}

TEST_P(TransportContract, NackHidesTheMessageAndItsGroupForTheDelayAndCountsAnAttempt) {
  transport().publish(std::vector{message("g", "a"), message("g", "b"), message("h", "c")});
  const Lease a = claim_one(transport());
  const auto nacked_at = std::chrono::steady_clock::now();
  EXPECT_TRUE(transport().nack(a, 300ms));
  EXPECT_EQ(claim_one(transport()).event.id, "c") << "a delayed message holds back only its own group";
  EXPECT_THAT(transport().claim("w", kLong, 10), IsEmpty()) << "neither a (delayed) nor b (behind it)";

  const auto back = claim_within(transport(), 5s);
  ASSERT_EQ(back.size(), 1u);
  EXPECT_GE(std::chrono::steady_clock::now() - nacked_at, 250ms);
  EXPECT_EQ(back[0].event.id, "a");
  EXPECT_EQ(back[0].attempts, 1);

  EXPECT_TRUE(transport().nack(back[0], 0ms));  // 0: claimable at once
  EXPECT_EQ(claim_one(transport()).attempts, 2);
}

TEST_P(TransportContract, DeferReturnsTheMessageWithoutCountingAnAttempt) {
  transport().publish("g", make_event("a"));
  Lease lease = claim_one(transport());
  EXPECT_TRUE(transport().defer(lease, 0ms));
  lease = claim_one(transport());
  EXPECT_EQ(lease.attempts, 0);

  EXPECT_TRUE(transport().defer(lease, kShort));
  EXPECT_THAT(transport().claim("w", kLong), IsEmpty()) << "hidden for the delay";
  auto back = claim_within(transport(), 5s);
  ASSERT_EQ(back.size(), 1u);
  EXPECT_EQ(back[0].attempts, 0);

  EXPECT_TRUE(transport().nack(back[0], 0ms));
  lease = claim_one(transport());
  EXPECT_EQ(lease.attempts, 1);
  EXPECT_TRUE(transport().defer(lease, 0ms));
  EXPECT_EQ(claim_one(transport()).attempts, 1);
}

TEST_P(TransportContract, ExtendKeepsTheLeasePastItsVisibility) {
  transport().publish("g", make_event("a"));
  const Lease lease = claim_one(transport(), 300ms);
  EXPECT_TRUE(transport().extend(lease, kLong));
  std::this_thread::sleep_for(500ms);
  EXPECT_THAT(transport().claim("w", kLong), IsEmpty());
  EXPECT_TRUE(transport().ack(lease));
  EXPECT_THAT(transport().claim("w", kLong), IsEmpty());
}

TEST_P(TransportContract, ExtendCanShortenTheLease) {
  transport().publish("g", make_event("a"));
  const Lease lease = claim_one(transport());
  EXPECT_TRUE(transport().extend(lease, 0ms));
  const auto back = claim_within(transport(), 5s);
  ASSERT_EQ(back.size(), 1u);
  EXPECT_EQ(back[0].attempts, 1);  // the shortened lease expired unacked
}

// ------------------------------------------------------------------ stale leases

TEST_P(TransportContract, EveryOperationOnAnEndedLeaseReturnsFalseAndChangesNothing) {
  transport().publish(std::vector{message("g", "a"), message("g", "b")});
  const Lease a = claim_one(transport());
  ASSERT_TRUE(transport().ack(a));
  EXPECT_FALSE(transport().ack(a));
  EXPECT_FALSE(transport().nack(a, 0ms));
  EXPECT_FALSE(transport().defer(a, 0ms));
  EXPECT_FALSE(transport().extend(a, kLong));
  EXPECT_FALSE(transport().park(a, "late"));

  // A nacked lease has ended too: a second nack must not count twice.
  const Lease b = claim_one(transport());
  ASSERT_TRUE(transport().nack(b, 0ms));
  EXPECT_FALSE(transport().nack(b, 0ms));
  EXPECT_FALSE(transport().ack(b));
  const Lease b2 = claim_one(transport());
  EXPECT_EQ(b2.attempts, 1);

  Lease forged = b2;
  forged.token = "not a token of this transport";
  EXPECT_FALSE(transport().ack(forged));
  EXPECT_THAT(transport().parked(), IsEmpty());
  EXPECT_EQ(transport().backlog().pending, 1);
}

TEST_P(TransportContract, AnExpiredLeaseIsStaleEvenBeforeAnotherClaim) {
  transport().publish("g", make_event("a"));
  const Lease lease = claim_one(transport(), 100ms);
  std::this_thread::sleep_for(250ms);
  EXPECT_FALSE(transport().ack(lease));
  EXPECT_FALSE(transport().nack(lease, 0ms));
  EXPECT_FALSE(transport().defer(lease, 0ms));
  EXPECT_FALSE(transport().extend(lease, kLong));
  EXPECT_FALSE(transport().park(lease, "late"));
  const Lease again = claim_one(transport());
  EXPECT_EQ(again.attempts, 1) << "the expiry counts, the refused defer does not undo it";

  // And after the message was claimed again, the old lease is stale for good.
  EXPECT_FALSE(transport().ack(lease));
  EXPECT_FALSE(transport().extend(lease, kLong));
  EXPECT_TRUE(transport().ack(again));
  EXPECT_EQ(transport().backlog().pending, 0);
}

// ------------------------------------------------------------------ parking

TEST_P(TransportContract, ParkTakesTheMessageOutAndItsGroupGoesOn) {
  transport().publish(std::vector{message("g", "a"), message("g", "b")});
  ASSERT_TRUE(transport().nack(claim_one(transport()), 0ms));
  const Lease a = claim_one(transport());
  ASSERT_EQ(a.attempts, 1);
  EXPECT_TRUE(transport().park(a, "boom: no such state"));
  EXPECT_FALSE(transport().park(a, "again"));
  EXPECT_FALSE(transport().ack(a));

  const auto parked = transport().parked();
  ASSERT_EQ(parked.size(), 1u);
  EXPECT_FALSE(parked[0].id.empty());
  EXPECT_EQ(parked[0].group_id, "g");
  EXPECT_EQ(parked[0].event, make_event("a"));
  EXPECT_EQ(parked[0].attempts, 2) << "the nack and the claim that parked it";
  EXPECT_EQ(parked[0].last_error, "boom: no such state");

  EXPECT_EQ(claim_one(transport()).event.id, "b") << "a parked message holds back nothing";
  const TransportBacklog backlog = transport().backlog();
  EXPECT_EQ(backlog.pending, 1);
  EXPECT_EQ(backlog.parked, 1);
}

TEST_P(TransportContract, ParkedMessagesAreListedOldestFirst) {
  transport().publish(std::vector{message("g", "a"), message("h", "b"), message("g", "c")});
  const auto leases = transport().claim("w", kLong, 2);  // a, b
  ASSERT_EQ(leases.size(), 2u);
  ASSERT_TRUE(transport().park(leases[1], "b failed"));
  ASSERT_TRUE(transport().park(leases[0], "a failed"));
  ASSERT_TRUE(transport().park(claim_one(transport()), "c failed"));
  std::vector<std::string> ids;
  for (const auto& p : transport().parked()) ids.push_back(p.event.id);
  EXPECT_THAT(ids, ElementsAre("a", "b", "c"));
}

TEST_P(TransportContract, RequeueOfOneIdPutsItBackAtTheEndOfItsGroupWithAttemptsReset) {
  transport().publish(std::vector{message("g", "a"), message("g", "b")});
  ASSERT_TRUE(transport().nack(claim_one(transport()), 0ms));
  ASSERT_TRUE(transport().park(claim_one(transport()), "a failed"));
  const std::string id = transport().parked().at(0).id;

  EXPECT_EQ(transport().requeue(id), 1);
  EXPECT_THAT(transport().parked(), IsEmpty());
  EXPECT_EQ(transport().requeue(id), 0) << "no longer parked";
  EXPECT_EQ(transport().requeue("no-such-id"), 0);

  Lease lease = claim_one(transport());
  EXPECT_EQ(lease.event.id, "b");
  ASSERT_TRUE(transport().ack(lease));
  lease = claim_one(transport());
  EXPECT_EQ(lease.event.id, "a");
  EXPECT_EQ(lease.attempts, 0);
}

TEST_P(TransportContract, RequeueOfEverythingKeepsEachGroupsOrder) {
  transport().publish(std::vector{message("g", "a"), message("g", "b"), message("h", "c")});
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(transport().park(claim_one(transport()), "failed"));
  ASSERT_EQ(transport().parked().size(), 3u);

  EXPECT_EQ(transport().requeue(std::nullopt), 3);
  EXPECT_THAT(transport().parked(), IsEmpty());
  EXPECT_EQ(transport().requeue(std::nullopt), 0);
  std::vector<std::string> order;
  for (auto leases = transport().claim("w", kLong); !leases.empty(); leases = transport().claim("w", kLong)) {
    EXPECT_EQ(leases[0].attempts, 0);
    order.push_back(leases[0].event.id);
    ASSERT_TRUE(transport().ack(leases[0]));
  }
  EXPECT_THAT(order, ElementsAre("a", "b", "c"));
}

// ------------------------------------------------------------------ dedupe

TEST_P(TransportContract, ADedupeIdSeenWithinTheWindowDropsThePublication) {
  transport().publish(std::vector{message("g", "a", "d1"), message("g", "a-again", "d1")});
  transport().publish(std::vector{message("h", "b", "d1"), message("g", "c", "d2")});
  transport().publish("g", make_event("e"));
  transport().publish("g", make_event("e"));  // no dedupe id: a new message each time

  std::vector<std::string> ids;
  for (auto leases = transport().claim("w", kLong); !leases.empty(); leases = transport().claim("w", kLong)) {
    ids.push_back(leases[0].event.id);
    ASSERT_TRUE(transport().ack(leases[0]));
  }
  EXPECT_THAT(ids, ElementsAre("a", "c", "e", "e"));
  // Acking does not end the window.
  transport().publish(std::vector{message("g", "a-late", "d1")});
  EXPECT_EQ(transport().backlog().pending, 0);
}

// ------------------------------------------------------------------ backlog

TEST_P(TransportContract, BacklogCountsPendingAndParkedMessages) {
  TransportBacklog empty = transport().backlog();
  EXPECT_EQ(empty.pending, 0);
  EXPECT_EQ(empty.parked, 0);
  EXPECT_FALSE(empty.oldest_age.has_value());

  transport().publish(std::vector{message("g", "a"), message("g", "b"), message("h", "c")});
  std::this_thread::sleep_for(50ms);
  TransportBacklog b = transport().backlog();
  EXPECT_EQ(b.pending, 3);
  EXPECT_EQ(b.parked, 0);
  ASSERT_TRUE(b.oldest_age.has_value());
  EXPECT_GE(*b.oldest_age, 40ms);
  EXPECT_LT(*b.oldest_age, 10s);

  const Lease a = claim_one(transport());
  EXPECT_EQ(transport().backlog().pending, 3) << "a leased message is still pending";
  ASSERT_TRUE(transport().park(a, "x"));
  b = transport().backlog();
  EXPECT_EQ(b.pending, 2);
  EXPECT_EQ(b.parked, 1);
  ASSERT_TRUE(transport().ack(claim_one(transport())));
  ASSERT_TRUE(transport().ack(claim_one(transport())));
  b = transport().backlog();
  EXPECT_EQ(b.pending, 0);
  EXPECT_EQ(b.parked, 1);
  EXPECT_FALSE(b.oldest_age.has_value());
}

// ------------------------------------------------------------------ errors

TEST_P(TransportContract, InvalidInputIsRejectedBeforeAnythingIsWritten) {
  const auto e = thrown<InvalidArgument>(
      [&] { transport().publish(std::vector{message("g", "a"), message("", "b")}); });
  EXPECT_THAT(e.what(), HasSubstr("group id"));
  EXPECT_THAT(e.what(), HasSubstr("'b'"));
  thrown<InvalidArgument>([&] { transport().publish(std::vector{message("g", "a", "")}); });
  EXPECT_EQ(transport().backlog().pending, 0) << "a publish is all or nothing";

  EXPECT_THAT(thrown<InvalidArgument>([&] { transport().claim("w", -1ms); }).what(), HasSubstr("visibility"));
  EXPECT_THAT(thrown<InvalidArgument>([&] { transport().claim("w", kLong, 0); }).what(), HasSubstr("max_messages"));
  thrown<InvalidArgument>([&] { transport().claim("w", kLong, 11); });

  transport().publish("g", make_event("a"));
  const Lease lease = claim_one(transport());
  EXPECT_THAT(thrown<InvalidArgument>([&] { transport().nack(lease, -1ms); }).what(), HasSubstr("delay"));
  thrown<InvalidArgument>([&] { transport().defer(lease, -1ms); });
  thrown<InvalidArgument>([&] { transport().extend(lease, -1ms); });
  EXPECT_TRUE(transport().ack(lease)) << "the rejected calls left the lease alone";
}

TEST_P(TransportContract, AfterCloseEveryCallRaisesTransportClosed) {
  transport().publish("g", make_event("a"));
  const Lease lease = claim_one(transport());
  transport().close();
  transport().close();  // idempotent

  const auto closed = [](auto call) {
    const auto e = thrown<BackendError>(call);
    EXPECT_EQ(e.code(), "TransportClosed");
  };
  closed([&] { transport().publish("g", make_event("b")); });
  closed([&] { transport().claim("w", kLong); });
  closed([&] { transport().ack(lease); });
  closed([&] { transport().nack(lease, 0ms); });
  closed([&] { transport().defer(lease, 0ms); });
  closed([&] { transport().extend(lease, kLong); });
  closed([&] { transport().park(lease, "x"); });
  closed([&] { transport().parked(); });
  closed([&] { transport().requeue(std::nullopt); });
  closed([&] { transport().requeue("1"); });
  closed([&] { transport().backlog(); });
}

// ------------------------------------------------------------------ concurrency

// Claimers on threads: a group never has two holders at once, every message
// is acked exactly once, and each group's messages are handled in order.
TEST_P(TransportContract, ConcurrentClaimersHoldOneLeasePerGroupAndLoseNothing) {
  constexpr int kGroups = 50;
  constexpr int kMessages = 2000;
  constexpr int kThreads = 8;
  std::vector<Publication> batch;
  for (int i = 0; i < kMessages; ++i) {
    Publication p = message("g" + std::to_string(i % kGroups), std::to_string(i));
    p.event.data = {{"seq", i / kGroups}};
    batch.push_back(std::move(p));
    if (batch.size() == 100) {
      transport().publish(batch);
      batch.clear();
    }
  }

  std::array<std::atomic<int>, kGroups> holders{};  // threads holding a lease of the group
  std::array<std::int64_t, kGroups> next_seq{};     // written only by the group's holder
  std::atomic<int> acked{0};
  std::atomic<int> violations{0};
  std::atomic<int> errors{0};
  const auto deadline = std::chrono::steady_clock::now() + 20s;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      try {
        while (acked.load() < kMessages && std::chrono::steady_clock::now() < deadline) {
          const auto leases = transport().claim("t" + std::to_string(t), kLong, 1 + t % 3);
          if (leases.empty()) {
            std::this_thread::yield();
            continue;
          }
          // Several leases of one group may come in one answer; the group is
          // this thread's until it acks the last of them.
          std::map<int, std::size_t> last_of_group;
          for (std::size_t i = 0; i < leases.size(); ++i) last_of_group[std::stoi(leases[i].group_id.substr(1))] = i;
          for (const auto& [group, last] : last_of_group)
            if (holders[group].fetch_add(1) != 0) ++violations;
          for (std::size_t i = 0; i < leases.size(); ++i) {
            const int group = std::stoi(leases[i].group_id.substr(1));
            if (leases[i].event.data.at("seq").as_int64() != next_seq[group]++) ++violations;
            if (last_of_group[group] == i) holders[group].fetch_sub(1);
            if (transport().ack(leases[i]))
              ++acked;
            else
              ++violations;  // no lease may expire here
          }
        }
      } catch (const std::exception&) {
        ++errors;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(errors.load(), 0);
  EXPECT_EQ(violations.load(), 0);
  EXPECT_EQ(acked.load(), kMessages);
  for (int g = 0; g < kGroups; ++g) EXPECT_EQ(next_seq[g], kMessages / kGroups) << "group g" << g;
  EXPECT_EQ(transport().backlog().pending, 0);
  EXPECT_THAT(transport().claim("w", kLong), IsEmpty());
}

}  // namespace
}  // namespace harel::testing
