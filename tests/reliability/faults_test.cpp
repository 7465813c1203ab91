// DynamoDBStore through injected faults: ~1,000 commits (emits, timers,
// dedupe marks) over an HttpDynamoClient that reaches DynamoDB Local only
// through a FaultProxy failing ~20 % of all requests. Everything is then
// checked through a DIRECT store that bypasses the proxy.
//
// What the store guarantees, and what this test holds it to:
// * A commit that returned was applied exactly once: its execution version,
//   outbox entries, dedupe mark and timers are stored once, never twice — even
//   when the answer to its TransactWriteItems was lost and the client sent it
//   again (the ClientRequestToken makes DynamoDB answer the replay with
//   success instead of a false StoreConflict).
// * A commit that raised StoreConflict, InvalidArgument or a non-retryable
//   DynamoError wrote nothing.
// * A commit that raised a TransportError or a retryable DynamoError (5xx,
//   throttling) after the client's retries has an UNKNOWN outcome: if an
//   earlier attempt reached DynamoDB and only its answer was lost, the
//   transaction was applied — always as a whole, never in part. No client can
//   rule this out; the caller resolves it by reloading (the dedupe mark tells
//   whether the event was handled). The test detects every such case, checks
//   it is complete and that its error was one of these "unknown" kinds, and
//   reports the count.
//
//   HAREL_FAULT_COMMITS (default 1000), HAREL_FAULT_SEED (default fixed).
#include <chrono>
#include <cstdio>
#include <map>
#include <set>

#include <boost/asio/io_context.hpp>
#include <boost/json/serialize.hpp>
#include <gtest/gtest.h>

#include "harel/dynamodb/errors.h"
#include "harel/dynamodb/http_client.h"
#include "harel/errors.h"
#include "harel/store/dynamodb_store.h"
#include "reliability/fixtures.h"
#include "support/fault_proxy.h"
#include "support/servers.h"

namespace harel::testing {
namespace {

namespace bj = boost::json;
using dynamodb::DynamoError;
using dynamodb::TransportError;

constexpr int kExecutions = 10;
constexpr int kCleanCommits = 100;

// What commit number k writes, derived from k alone.
struct Planned {
  std::string execution_id;
  Effects effects;
};

Planned plan_commit(int k) {
  Planned p{"x" + std::to_string(k % kExecutions), {}};
  for (int j = 0; j <= k % 2; ++j) p.effects.emits.push_back({"sink", tick("c" + std::to_string(k) + "." + std::to_string(j))});
  p.effects.processed_event_id = "in-" + std::to_string(k);
  p.effects.timers.push_back(TimerOp::schedule("p" + std::to_string(k % 3), 1000 + k));
  if (k % 4 == 0) p.effects.timers.push_back(TimerOp::cancel("p" + std::to_string((k + 1) % 3)));
  return p;
}

// Whether an error leaves the commit's outcome unknown (see the top).
bool outcome_unknown(const std::exception_ptr& error) {
  try {
    std::rethrow_exception(error);
  } catch (const TransportError&) {
    return true;
  } catch (const DynamoError& e) {
    return e.retryable();
  } catch (...) {
    return false;
  }
}

std::string describe(const std::exception_ptr& error) {
  try {
    std::rethrow_exception(error);
  } catch (const std::exception& e) {
    return e.what();
  }
}

dynamodb::HttpClientOptions faulty_network_options() {
  dynamodb::HttpClientOptions o;
  o.retry.max_attempts = 3;  // a small budget: some commits must fail
  o.retry.base_delay = std::chrono::milliseconds(2);
  o.retry.throttle_base_delay = std::chrono::milliseconds(5);
  o.retry.max_backoff = std::chrono::milliseconds(20);
  o.retry.quota_capacity = 0;  // the quota would turn a fault storm into fail-fast; not under test here
  o.connect_timeout = std::chrono::milliseconds(1000);
  o.request_timeout = std::chrono::milliseconds(3000);
  return o;
}

// Every item of a table, through the direct client (all pages).
std::vector<bj::object> scan_table(dynamodb::DynamoClient& client, const std::string& table) {
  std::vector<bj::object> rows;
  bj::object request{{"TableName", table}, {"ConsistentRead", true}};
  for (;;) {
    bj::value page = client.call("Scan", request);
    for (auto& item : page.at("Items").as_array()) rows.push_back(item.as_object());
    const bj::value* lek = page.as_object().if_contains("LastEvaluatedKey");
    if (!lek) return rows;
    request["ExclusiveStartKey"] = *lek;
  }
}

TEST(Faults, EveryCommitIsStoredExactlyOnceOrNotAtAllThroughInjectedFaults) {
  const int commits = static_cast<int>(env_int("HAREL_FAULT_COMMITS", 1000));
  const auto seed = static_cast<std::uint64_t>(env_int("HAREL_FAULT_SEED", 20240607));
  const std::string endpoint = dynamodb_local_endpoint();
  const std::string prefix = unique_prefix("faults");

  DynamoDBConnect direct_connect;
  direct_connect.endpoint_url = endpoint;
  direct_connect.store.prefix = prefix;
  const auto direct = DynamoDBStore::create(direct_connect);
  boost::asio::io_context io;  // the clients' executor; only blocking calls are made
  dynamodb::HttpDynamoClient direct_client(io.get_executor(), dynamodb::resolve_settings({endpoint, {}, {}, {}}));

  FaultProxy proxy(endpoint, FaultPlan{.seed = seed});
  auto faulty_client = std::make_shared<dynamodb::HttpDynamoClient>(
      io.get_executor(), dynamodb::resolve_settings({proxy.url(), {}, {}, {}}), faulty_network_options());
  DynamoDBStore store(faulty_client, {.prefix = prefix});

  std::map<std::string, Execution> current;  // what the caller believes is stored
  for (int x = 0; x < kExecutions; ++x) current.emplace("x" + std::to_string(x), new_execution("x" + std::to_string(x)));
  std::vector<int> applied;  // commit numbers that are stored, in commit order
  int ok = 0, failed_clean = 0, false_conflicts = 0;
  std::vector<std::string> ambiguous;  // failed, yet applied: "k: error"

  // Commits k in [first, last); counts in `succeeded` those that reported success.
  auto run = [&](int first, int last, int& succeeded) {
    for (int k = first; k < last; ++k) {
      const Planned p = plan_commit(k);
      Execution& exe = current.at(p.execution_id);
      Execution next = exe;
      next.context["n"] = next.context["n"].as_int64() + 1;
      next.context["log"].as_array().push_back(k);
      std::exception_ptr error;
      try {
        store.commit(next, p.effects);
      } catch (const StoreConflict&) {
        ++false_conflicts;  // one writer per execution: every conflict is false
        error = std::current_exception();
      } catch (const Error&) {
        error = std::current_exception();
      }
      if (!error) {
        EXPECT_EQ(next.version, exe.version + 1);
        exe = std::move(next);
        applied.push_back(k);
        ++succeeded;
        continue;
      }
      EXPECT_EQ(next.version, exe.version) << "a failed commit must not bump the caller's version";
      const std::optional<Execution> stored = direct->load(p.execution_id);
      const std::int64_t stored_version = stored ? stored->version : 0;
      if (stored_version == exe.version) {
        ++failed_clean;
        continue;
      }
      // The transaction was applied although the caller was told it failed.
      ASSERT_EQ(stored_version, exe.version + 1);
      ASSERT_EQ(stored->context.at("log").as_array().back(), k);
      EXPECT_TRUE(outcome_unknown(error)) << "commit " << k << " wrote its effects yet failed with a definite error: "
                                          << describe(error);
      ambiguous.push_back(std::to_string(k) + ": " + describe(error));
      exe = *stored;  // the caller's reload
      applied.push_back(k);
    }
  };

  const auto started = std::chrono::steady_clock::now();
  run(0, commits, ok);
  const FaultCounts faults = proxy.counts();
  proxy.set_faults_enabled(false);
  // The client recovers: with the faults gone, every commit succeeds.
  int clean_ok = 0;
  run(commits, commits + kCleanCommits, clean_ok);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();

  std::printf("faults: %s\ncommits: %d through faults, %d ok, %d failed cleanly, %d failed but applied "
              "(ambiguous); %d false conflicts; clean run %d/%d ok; %.1f s\n",
              faults.summary().c_str(), commits, ok, failed_clean, static_cast<int>(ambiguous.size()),
              false_conflicts, clean_ok, kCleanCommits, seconds);
  for (const auto& a : ambiguous) std::printf("  ambiguous commit %s\n", a.c_str());
  ::testing::Test::RecordProperty("faults_injected", static_cast<int>(faults.total()));
  ::testing::Test::RecordProperty("commits_ok", ok);
  ::testing::Test::RecordProperty("commits_failed", commits - ok);
  ::testing::Test::RecordProperty("ambiguous", static_cast<int>(ambiguous.size()));

  EXPECT_EQ(false_conflicts, 0);
  EXPECT_EQ(clean_ok, kCleanCommits);
  EXPECT_EQ(ok + failed_clean + static_cast<int>(ambiguous.size()), commits);
  if (commits >= 1000) {  // the default run must really have exercised every fault
    for (std::size_t f = 0; f < kFaultKinds; ++f) EXPECT_GT(faults.injected[f], 0) << fault_name(Fault(f));
    EXPECT_GT(faults.on_transactions[static_cast<std::size_t>(Fault::DropResponse)], 0);
    EXPECT_GT(commits - ok, 0) << "the retry budget is meant to let some commits fail";
  }

  // ---- the stored state, read around the proxy, matches exactly the applied commits
  std::vector<std::string> expected_outbox;
  std::set<std::string> expected_marks;
  std::map<std::pair<std::string, std::string>, EpochSeconds> expected_timers;
  std::map<std::string, bj::array> expected_logs;
  for (int k : applied) {
    const Planned p = plan_commit(k);
    for (const Emit& e : p.effects.emits) expected_outbox.push_back(e.event.id);
    expected_marks.insert(*p.effects.processed_event_id);
    for (const TimerOp& t : p.effects.timers) {
      if (t.action == TimerOp::Action::Schedule)
        expected_timers[{p.execution_id, t.path}] = t.fire_at;
      else
        expected_timers.erase({p.execution_id, t.path});
    }
    expected_logs[p.execution_id].push_back(k);
  }

  std::vector<std::string> outbox;  // in seq order: one commit after the other
  for (const OutboxEntry& o : direct->pending_outbox()) outbox.push_back(o.event.id);
  EXPECT_EQ(outbox, expected_outbox) << "an outbox entry was lost, duplicated or reordered";

  std::set<std::string> marks;
  const auto processed = scan_table(direct_client, prefix + "_processed");
  for (const bj::object& row : processed) marks.insert(std::string(row.at("event_id").at("S").as_string()));
  EXPECT_EQ(processed.size(), marks.size());
  EXPECT_EQ(marks, expected_marks);

  std::map<std::pair<std::string, std::string>, EpochSeconds> timers;
  for (const DueTimer& t : direct->due_timers(1e12)) timers[{t.execution_id, t.path}] = t.fire_at;
  EXPECT_EQ(timers, expected_timers);

  for (const auto& [id, log] : expected_logs) {
    const Execution stored = *direct->load(id);
    EXPECT_EQ(stored.version, static_cast<std::int64_t>(log.size())) << id;
    EXPECT_EQ(stored.context.at("log").as_array(), log) << id << ": a lost or doubled update";
    EXPECT_EQ(stored.version, current.at(id).version) << id;
  }
}

// The ambiguous outcome made certain: every answer is dropped after DynamoDB
// applied the request. The commit reports an "unknown" error, yet it was
// applied — once, not once per attempt (the token) — and a reload resolves
// it: the dedupe mark says the event was handled.
TEST(Faults, ACommitWhoseAnswersAreAllLostIsAppliedOnceAndFoundByReload) {
  const std::string endpoint = dynamodb_local_endpoint();
  DynamoDBConnect direct_connect;
  direct_connect.endpoint_url = endpoint;
  direct_connect.store.prefix = unique_prefix("lost");
  const auto direct = DynamoDBStore::create(direct_connect);
  FaultProxy proxy(endpoint, FaultPlan{.rate = 1.0, .kinds = {Fault::DropResponse}});
  boost::asio::io_context io;
  auto client = std::make_shared<dynamodb::HttpDynamoClient>(
      io.get_executor(), dynamodb::resolve_settings({proxy.url(), {}, {}, {}}), faulty_network_options());
  DynamoDBStore store(client, {.prefix = direct_connect.store.prefix});

  Execution e = new_execution("x1");
  Effects fx;
  fx.processed_event_id = "in-1";
  fx.timers.push_back(TimerOp::schedule("p", 5));
  try {
    store.commit(e, fx);
    FAIL() << "every answer was dropped";
  } catch (const TransportError& t) {
    EXPECT_TRUE(t.retryable());
  }
  EXPECT_EQ(e.version, 0);
  EXPECT_GE(proxy.counts().of(Fault::DropResponse), 3);  // every attempt reached the server

  const Execution stored = *direct->load("x1");
  EXPECT_EQ(stored.version, 1) << "applied once, not once per attempt";
  EXPECT_TRUE(direct->is_processed("x1", "in-1"));
  EXPECT_EQ(direct->due_timers(10).size(), 1u);
  EXPECT_THROW(direct->save(e), StoreConflict);  // the stale caller's next write is a true conflict
}

}  // namespace
}  // namespace harel::testing
