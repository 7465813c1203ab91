// The behaviour every ExecutionStore must have, as the seed describes it.
#include "store/contract.h"

#include <algorithm>
#include <atomic>
#include <map>
#include <set>
#include <thread>

#include <gmock/gmock.h>

#include "harel/errors.h"

namespace harel::testing {
namespace {

using ::testing::ElementsAre;

Execution make_execution(const std::string& id, const std::string& definition = "order") {
  Execution e;
  e.id = id;
  e.definition_id = definition;
  e.context = {{"n", 1}};
  return e;
}

Event make_event(const std::string& id, const std::string& kind = "Go") {
  Event ev;
  ev.id = id;
  ev.kind = kind;
  ev.data = {{"k", id}};
  return ev;
}

Effects one_emit(const std::string& target, const std::string& event_id) {
  Effects fx;
  fx.emits.push_back({target, make_event(event_id)});
  return fx;
}

std::vector<std::int64_t> indices(const std::vector<TraceStep>& steps) {
  std::vector<std::int64_t> out;
  for (const auto& s : steps) out.push_back(s.at("index").as_int64());
  return out;
}

TraceStep step(int n) { return {{"event_kind", "Go"}, {"n", n}}; }

// ------------------------------------------------------------------ CAS

TEST_P(StoreContract, InsertThenUpdateBumpsTheVersion) {
  Execution e = make_execution("x1");
  store().save(e);
  EXPECT_EQ(e.version, 1);
  e.context["n"] = 2;
  store().save(e);
  EXPECT_EQ(e.version, 2);

  const auto loaded = store().load("x1");
  ASSERT_TRUE(loaded);
  EXPECT_EQ(loaded->version, 2);  // the stored JSON carries the committed version
  EXPECT_EQ(loaded->context.at("n").as_int64(), 2);
  EXPECT_EQ(*loaded, e);
}

TEST_P(StoreContract, LoadOfAnUnknownIdIsEmpty) { EXPECT_FALSE(store().load("nobody").has_value()); }

TEST_P(StoreContract, SecondInsertOfTheSameIdConflicts) {
  Execution a = make_execution("x1");
  store().save(a);
  Execution b = make_execution("x1");
  try {
    store().save(b);
    FAIL() << "expected StoreConflict";
  } catch (const StoreConflict& c) {
    EXPECT_EQ(c.execution_id(), "x1");
    EXPECT_EQ(c.expected(), 0);
    EXPECT_EQ(c.found(), 1);
  }
  EXPECT_EQ(b.version, 0);
}

TEST_P(StoreContract, StaleSaveConflictsAndLeavesTheStoredRow) {
  Execution e = make_execution("x1");
  store().save(e);
  Execution stale = *store().load("x1");
  e.context["n"] = 42;
  store().save(e);  // version 2

  stale.context["n"] = -1;
  try {
    store().save(stale);
    FAIL() << "expected StoreConflict";
  } catch (const StoreConflict& c) {
    EXPECT_EQ(c.execution_id(), "x1");
    EXPECT_EQ(c.expected(), 1);
    EXPECT_EQ(c.found(), 2);
  }
  EXPECT_EQ(stale.version, 1);  // the in-memory bump is undone
  const auto stored = store().load("x1");
  EXPECT_EQ(stored->version, 2);
  EXPECT_EQ(stored->context.at("n").as_int64(), 42);
}

TEST_P(StoreContract, UpdateOfAMissingExecutionConflictsWithNothingFound) {
  Execution e = make_execution("ghost");
  e.version = 3;
  try {
    store().save(e);
    FAIL() << "expected StoreConflict";
  } catch (const StoreConflict& c) {
    EXPECT_EQ(c.expected(), 3);
    EXPECT_FALSE(c.found().has_value());
  }
  EXPECT_FALSE(store().load("ghost"));
}

TEST_P(StoreContract, StaleCommitLeaksNoEffect) {
  Execution e = make_execution("x1");
  store().save(e);
  Execution stale = *store().load("x1");
  store().save(e);

  Effects fx = one_emit("other", "ev-leak");
  fx.spawns.push_back({"x1.Fork.A.0", "Fork.A", {{"seed", 1}}});
  fx.processed_event_id = "ev-in";
  fx.timers.push_back(TimerOp::schedule("Waiting", 100.5));
  fx.trace = step(1);
  EXPECT_THROW(store().commit(stale, fx), StoreConflict);

  EXPECT_TRUE(store().pending_outbox().empty());
  EXPECT_TRUE(store().pending_spawns().empty());
  EXPECT_FALSE(store().is_processed("x1", "ev-in"));
  EXPECT_TRUE(store().due_timers(1e12).empty());
  EXPECT_TRUE(store().read_trace("x1").empty());
}

TEST_P(StoreContract, ConcurrentWritersHaveExactlyOneWinnerPerVersion) {
  if (!GetParam().atomic_under_concurrency)
    GTEST_SKIP() << GetParam().name << " does not apply concurrent transactions atomically (see StoreFactory)";
  Execution seed = make_execution("race");
  store().save(seed);
  constexpr int kThreads = 8;
  constexpr int kAttemptsEach = 15;
  std::atomic<int> successes{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kAttemptsEach; ++i) {
        auto e = store().load("race");
        if (!e) continue;
        e->context["by"] = t;
        try {
          store().commit(*e, one_emit("sink", "ev-" + std::to_string(t) + "-" + std::to_string(i)));
          ++successes;
        } catch (const StoreConflict&) {
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_GT(successes.load(), 0);
  EXPECT_EQ(store().load("race")->version, 1 + successes.load());      // no lost update
  EXPECT_EQ(static_cast<int>(store().pending_outbox().size()), successes.load());  // losers leaked nothing
}

TEST_P(StoreContract, UnknownFieldsSurviveLoadAndSave) {
  Execution e = make_execution("x1");
  e.extra = {{"future", {{"a", 1}}}};
  store().save(e);
  Execution loaded = *store().load("x1");
  EXPECT_EQ(loaded.extra, e.extra);
  store().save(loaded);
  EXPECT_EQ(store().load("x1")->extra, e.extra);
}

// ------------------------------------------------------------------ outbox & spawns

TEST_P(StoreContract, OutboxIsWrittenOnTheFirstInsert) {
  Execution e = make_execution("x1");
  store().commit(e, one_emit("parent-1", "evF"));
  const auto pending = store().pending_outbox();
  ASSERT_EQ(pending.size(), 1u);
  EXPECT_EQ(pending[0].target_id, "parent-1");
  EXPECT_EQ(pending[0].event, make_event("evF"));
}

TEST_P(StoreContract, OutboxIsOrderedAcrossExecutionsAndAcked) {
  Execution a = make_execution("a");
  Execution b = make_execution("b");
  store().commit(a, one_emit("t", "e1"));
  store().commit(b, one_emit("t", "e2"));
  Effects two;
  two.emits = {{"t", make_event("e3")}, {"u", make_event("e4")}};
  store().commit(a, two);

  auto pending = store().pending_outbox();
  ASSERT_EQ(pending.size(), 4u);
  std::vector<std::string> ids;
  for (std::size_t i = 0; i < pending.size(); ++i) {
    ids.push_back(pending[i].event.id);
    if (i) {
      EXPECT_LT(pending[i - 1].seq, pending[i].seq);
    }
  }
  EXPECT_THAT(ids, ElementsAre("e1", "e2", "e3", "e4"));

  store().ack_outbox(pending[1].seq);
  store().ack_outbox(pending[1].seq);  // acking twice is harmless
  pending = store().pending_outbox();
  ASSERT_EQ(pending.size(), 3u);
  EXPECT_EQ(pending[1].event.id, "e3");
}

TEST_P(StoreContract, CommitReceiptNamesTheRowsItWrote) {
  Execution a = make_execution("a");
  store().commit(a, one_emit("t", "e0"));  // rows of an earlier commit are not in the receipt
  Effects fx;
  fx.emits = {{"t", make_event("e1")}, {"u", make_event("e2")}, {"v", make_event("e3")}};
  fx.spawns.push_back({"a.Fork.A.0", "Fork.A", {}});
  fx.spawns.push_back({"a.Fork.B.0", "Fork.B", {}});
  const CommitReceipt receipt = store().commit(a, fx);

  std::map<std::int64_t, std::string> outbox;
  for (const auto& entry : store().pending_outbox()) outbox[entry.seq] = entry.event.id;
  for (std::size_t i = 0; i < fx.emits.size(); ++i) EXPECT_EQ(outbox[receipt.outbox_seq(i)], fx.emits[i].event.id);
  std::map<std::int64_t, std::string> spawns;
  for (const auto& entry : store().pending_spawns()) spawns[entry.seq] = entry.child_id;
  for (std::size_t i = 0; i < fx.spawns.size(); ++i) EXPECT_EQ(spawns[receipt.spawn_seq(i)], fx.spawns[i].child_id);

  const CommitReceipt none = store().commit(a, Effects{});
  EXPECT_EQ(none.first_outbox_seq, 0);
  EXPECT_EQ(none.first_spawn_seq, 0);
}

TEST_P(StoreContract, UntargetedEmitRoundTrips) {
  Execution e = make_execution("x1");
  Effects fx;
  fx.emits.push_back({std::nullopt, make_event("broadcast")});
  store().commit(e, fx);
  const auto pending = store().pending_outbox();
  ASSERT_EQ(pending.size(), 1u);
  EXPECT_FALSE(pending[0].target_id.has_value());
  EXPECT_EQ(pending[0].event.id, "broadcast");
}

TEST_P(StoreContract, EmittedEventsKeepTheirFieldsExactly) {
  Execution e = make_execution("x1");
  Event ev = make_event("ev1", "Paid");
  ev.created_time = "2026-12-02T10:00:00Z";
  ev.data = {{"amount", 12.5}, {"uni", "café ✓"}, {"big", 12345678901234}};
  ev.extra = {{"trace_id", "t-1"}};
  Effects fx;
  fx.emits.push_back({"p", ev});
  store().commit(e, fx);
  EXPECT_EQ(store().pending_outbox().at(0).event, ev);
}

TEST_P(StoreContract, SpawnsCommitInOrderAndAck) {
  Execution e = make_execution("x1");
  Effects fx;
  fx.spawns.push_back({"x1.Fork.A.0", "Fork.A", {{"seed", 1}}});
  fx.spawns.push_back({"x1.Fork.B.0", "Fork.B", {}});
  store().commit(e, fx);

  auto pending = store().pending_spawns();
  ASSERT_EQ(pending.size(), 2u);
  EXPECT_LT(pending[0].seq, pending[1].seq);
  EXPECT_EQ(pending[0].parent_id, "x1");
  EXPECT_EQ(pending[0].child_id, "x1.Fork.A.0");
  EXPECT_EQ(pending[0].root_path, "Fork.A");
  EXPECT_EQ(pending[0].context, (boost::json::object{{"seed", 1}}));
  EXPECT_EQ(pending[1].child_id, "x1.Fork.B.0");

  store().ack_spawn(pending[0].seq);
  pending = store().pending_spawns();
  ASSERT_EQ(pending.size(), 1u);
  EXPECT_EQ(pending[0].child_id, "x1.Fork.B.0");
}

// ------------------------------------------------------------------ timers

TEST_P(StoreContract, TimersScheduleRescheduleCancelAndFallDue) {
  Execution a = make_execution("a");
  Execution b = make_execution("b");
  Effects fx;
  fx.timers = {TimerOp::schedule("Waiting", 200.25), TimerOp::schedule("Other", 50.5)};
  store().commit(a, fx);
  Effects fb;
  fb.timers = {TimerOp::schedule("Waiting", 100.0)};
  store().commit(b, fb);

  EXPECT_TRUE(store().due_timers(10).empty());
  EXPECT_THAT(store().due_timers(150), ElementsAre(DueTimer{"a", "Other", 50.5}, DueTimer{"b", "Waiting", 100.0}));

  Effects reschedule;
  reschedule.timers = {TimerOp::schedule("Other", 300.0), TimerOp::cancel("Waiting")};
  store().commit(a, reschedule);
  EXPECT_THAT(store().due_timers(1000), ElementsAre(DueTimer{"b", "Waiting", 100.0}, DueTimer{"a", "Other", 300.0}));
  EXPECT_THAT(store().due_timers(300), ElementsAre(DueTimer{"b", "Waiting", 100.0}, DueTimer{"a", "Other", 300.0}));
}

TEST_P(StoreContract, DeleteTimerIsGuardedOnFireAt) {
  Execution e = make_execution("x1");
  Effects fx;
  fx.timers = {TimerOp::schedule("Waiting", 1764669600.25)};
  store().commit(e, fx);
  Effects re;
  re.timers = {TimerOp::schedule("Waiting", 1764669700.5)};
  store().commit(e, re);

  EXPECT_FALSE(store().delete_timer("x1", "Waiting", 1764669600.25));  // a stale sweep: no-op
  EXPECT_THAT(store().due_timers(2e9), ElementsAre(DueTimer{"x1", "Waiting", 1764669700.5}));
  EXPECT_TRUE(store().delete_timer("x1", "Waiting", 1764669700.5));
  EXPECT_TRUE(store().due_timers(2e9).empty());
  EXPECT_FALSE(store().delete_timer("x1", "Waiting", 1764669700.5));
}

// ------------------------------------------------------------------ dedupe

TEST_P(StoreContract, DedupeMarksAreWrittenWithTheCommit) {
  Execution e = make_execution("x1");
  EXPECT_FALSE(store().is_processed("x1", "evA"));
  Effects fx;
  fx.processed_event_id = "evA";
  store().commit(e, fx);
  EXPECT_TRUE(store().is_processed("x1", "evA"));
  EXPECT_FALSE(store().is_processed("x1", "evB"));
  EXPECT_FALSE(store().is_processed("x2", "evA"));
}

// Two workers may both load an event as new; the dedupe mark in the commit
// makes the second one fail instead of applying the event twice.
TEST_P(StoreContract, CommitOfAnAlreadyProcessedEventWritesNothing) {
  Execution e = make_execution("x1");
  Effects first = one_emit("t", "out-1");
  first.processed_event_id = "evA";
  store().commit(e, first);

  Execution current = *store().load("x1");
  Effects again = one_emit("t", "out-2");
  again.processed_event_id = "evA";
  again.timers.push_back(TimerOp::schedule("W", 10));
  try {
    store().commit(current, again);
    FAIL() << "expected AlreadyProcessed";
  } catch (const AlreadyProcessed& p) {
    EXPECT_EQ(p.execution_id(), "x1");
    EXPECT_EQ(p.event_id(), "evA");
  }
  EXPECT_EQ(current.version, 1);
  EXPECT_EQ(store().load("x1")->version, 1);
  ASSERT_EQ(store().pending_outbox().size(), 1u);
  EXPECT_EQ(store().pending_outbox()[0].event.id, "out-1");
  EXPECT_TRUE(store().due_timers(100).empty());
}

TEST_P(StoreContract, LoadForEventAnswersBothQuestions) {
  auto none = store().load_for_event("x1", "evA");
  EXPECT_FALSE(none.execution);
  EXPECT_FALSE(none.already_processed);

  Execution e = make_execution("x1");
  Effects fx;
  fx.processed_event_id = "evA";
  store().commit(e, fx);

  auto seen = store().load_for_event("x1", "evA");
  ASSERT_TRUE(seen.execution);
  EXPECT_EQ(*seen.execution, e);
  EXPECT_TRUE(seen.already_processed);
  auto fresh = store().load_for_event("x1", "evB");
  ASSERT_TRUE(fresh.execution);
  EXPECT_FALSE(fresh.already_processed);
}

// ------------------------------------------------------------------ trace ring

TEST_P(StoreContract, TraceRingKeepsExactlyTheLastN) {
  store().set_trace_max(3);
  Execution e = make_execution("x1");
  for (int i = 0; i < 7; ++i) {
    Effects fx;
    fx.trace = step(i);
    store().commit(e, fx);
  }
  const auto trace = store().read_trace("x1");
  EXPECT_THAT(indices(trace), ElementsAre(4, 5, 6));
  EXPECT_EQ(trace[0].at("n").as_int64(), 4);
  EXPECT_EQ(trace[2].at("event_kind").as_string(), "Go");
  EXPECT_TRUE(store().read_trace("other").empty());
}

TEST_P(StoreContract, UntracedCommitsLeaveNoGapInIndices) {
  Execution e = make_execution("x1");
  Effects traced;
  traced.trace = step(0);
  store().commit(e, traced);
  store().save(e);
  Execution stale = *store().load("x1");
  store().save(e);
  EXPECT_THROW(store().commit(stale, traced), StoreConflict);  // a cancelled traced commit
  store().commit(e, traced);
  EXPECT_THAT(indices(store().read_trace("x1")), ElementsAre(0, 1));
}

TEST_P(StoreContract, LoweredTraceMaxNeverOverDeletes) {
  store().set_trace_max(5);
  Execution e = make_execution("x1");
  auto traced_commit = [&](int n) {
    Effects fx;
    fx.trace = step(n);
    store().commit(e, fx);
  };
  for (int i = 0; i < 5; ++i) traced_commit(i);  // indices 0..4, window full
  store().set_trace_max(2);
  for (int i = 5; i < 8; ++i) {
    traced_commit(i);
    const auto idx = indices(store().read_trace("x1"));
    // The newest two are always there, indices stay increasing, and older
    // steps may linger (over-retention) but the ring never empties below 2.
    ASSERT_GE(idx.size(), 2u);
    EXPECT_EQ(idx[idx.size() - 1], i);
    EXPECT_EQ(idx[idx.size() - 2], i - 1);
    EXPECT_TRUE(std::is_sorted(idx.begin(), idx.end()));
    EXPECT_LE(idx.size(), 5u);
  }
}

TEST_P(StoreContract, AppendTraceOutsideACommit) {
  store().set_trace_max(2);
  store().append_trace("x1", step(0));
  store().append_trace("x1", step(1));
  store().append_trace("x1", step(2));
  auto trace = store().read_trace("x1");
  EXPECT_THAT(indices(trace), ElementsAre(1, 2));
  EXPECT_EQ(trace[1].at("n").as_int64(), 2);

  TraceStep explicit_index = step(9);
  explicit_index["index"] = 10;
  store().append_trace("x1", explicit_index);
  EXPECT_THAT(indices(store().read_trace("x1")), ElementsAre(1, 2, 10));  // 10 - 2 = 8 was never there
}

// ------------------------------------------------------------------ listing

}  // namespace

// 12 executions: definitions order/refund, statuses PENDING/RUNNING/DONE/FAILED,
// two of them children of o0.
void ListingContract::SetUp() {
  StoreContract::SetUp();
  const Status statuses[] = {Status::Pending, Status::Running, Status::Done, Status::Failed};
  for (int i = 0; i < 12; ++i) {
    Execution e = make_execution((i < 6 ? "o" : "r") + std::to_string(i), i < 6 ? "order" : "refund");
    e.status = statuses[i % 4];
    e.context = {{"secret", "payload"}};
    if (i == 4 || i == 5) e.parent_id = "o0";
    store().save(e);
  }
}

std::set<std::string> ListingContract::collect(ListQuery query) {
  std::set<std::string> ids;
  for (int guard = 0; guard < 100; ++guard) {
    ExecutionPage page = store().list_executions(query);
    for (const auto& s : page.items) {
      EXPECT_TRUE(ids.insert(s.id).second) << "duplicate " << s.id;
      EXPECT_EQ(s.version, 1);
    }
    if (!page.next_cursor) return ids;
    query.cursor = page.next_cursor;
  }
  ADD_FAILURE() << "listing never ended";
  return ids;
}

namespace {

TEST_P(ListingContract, EverythingAcrossPages) {
  ListQuery q;
  q.limit = 5;
  EXPECT_EQ(collect(q), (std::set<std::string>{"o0", "o1", "o2", "o3", "o4", "o5", "r6", "r7", "r8", "r9", "r10",
                                               "r11"}));
}

TEST_P(ListingContract, ByDefinition) {
  ListQuery q;
  q.definition_id = "refund";
  q.limit = 4;
  EXPECT_EQ(collect(q), (std::set<std::string>{"r6", "r7", "r8", "r9", "r10", "r11"}));
}

TEST_P(ListingContract, ByStatusAnyOf) {
  ListQuery q;
  q.statuses = {Status::Done, Status::Failed};
  q.limit = 3;
  EXPECT_EQ(collect(q), (std::set<std::string>{"o2", "o3", "r6", "r7", "r10", "r11"}));
}

TEST_P(ListingContract, RootsOnly) {
  ListQuery q;
  q.roots_only = true;
  q.limit = 2;
  const auto ids = collect(q);
  EXPECT_EQ(ids.size(), 10u);
  EXPECT_FALSE(ids.count("o4"));
  EXPECT_FALSE(ids.count("o5"));
}

TEST_P(ListingContract, CombinedFilters) {
  ListQuery q;
  q.definition_id = "order";
  q.statuses = {Status::Pending, Status::Running};
  q.roots_only = true;
  q.limit = 1;
  EXPECT_EQ(collect(q), (std::set<std::string>{"o0", "o1"}));
}

// (A summary has no context member at all: the type guarantees it.)
TEST_P(ListingContract, SummariesCarryTheirFields) {
  ListQuery q;
  q.limit = 100;
  q.definition_id = "order";
  const auto ids = collect(q);
  ASSERT_EQ(ids.size(), 6u);
  bool saw_child = false;
  for (ListQuery page_q = q;;) {
    const auto page = store().list_executions(page_q);
    for (const auto& s : page.items) {
      EXPECT_EQ(s.definition_id, "order");
      if (s.id == "o4") {
        saw_child = true;
        EXPECT_EQ(s.parent_id, "o0");
        EXPECT_EQ(s.status, Status::Pending);
      }
    }
    if (!page.next_cursor) break;
    page_q.cursor = page.next_cursor;
  }
  EXPECT_TRUE(saw_child);
}

// ------------------------------------------------------------------ bad input

TEST_P(StoreContract, GarbageCursorIsInvalidCursor) {
  ListQuery q;
  for (const char* cursor : {"%%%not-base64%%%", "bm90IGpzb24", "", "eyJ4IjoxfQ"}) {
    q.cursor = cursor;
    EXPECT_THROW(store().list_executions(q), InvalidCursor) << cursor;
  }
}

TEST_P(StoreContract, NonPositiveLimitIsInvalidArgument) {
  ListQuery q;
  q.limit = 0;
  EXPECT_THROW(store().list_executions(q), InvalidArgument);
}

TEST_P(StoreContract, EmptyAndOversizedIdsAreInvalidArgumentAndWriteNothing) {
  Execution e = make_execution("");
  EXPECT_THROW(store().save(e), InvalidArgument);
  EXPECT_EQ(e.version, 0);
  Execution huge = make_execution(std::string(2049, 'x'));
  EXPECT_THROW(store().save(huge), InvalidArgument);
  EXPECT_THROW(store().load(""), InvalidArgument);
  EXPECT_THROW(store().is_processed("x", ""), InvalidArgument);

  Execution ok = make_execution("x1");
  Effects bad = one_emit("t", "");  // an emitted event without an id
  EXPECT_THROW(store().commit(ok, bad), InvalidArgument);
  EXPECT_EQ(ok.version, 0);
  EXPECT_FALSE(store().load("x1"));
  EXPECT_TRUE(store().pending_outbox().empty());
}

TEST_P(StoreContract, CorruptStoredRecordIsCorruptRecordNamingTheId) {
  if (!GetParam().corrupt) GTEST_SKIP() << GetParam().name << " has no storage format to corrupt";
  Execution e = make_execution("x1");
  store().save(e);
  for (const char* raw : {"not json", "[1,2]", R"({"id":"x1","definition_id":"order","status":"WEIRD"})",
                          R"({"id":"x1","definition_id":"order","version":"one"})"}) {
    GetParam().corrupt(store(), "x1", raw);
    try {
      store().load("x1");
      ADD_FAILURE() << "expected CorruptRecord for " << raw;
    } catch (const CorruptRecord& c) {
      EXPECT_EQ(c.key(), "x1");
      EXPECT_NE(std::string(c.what()).find("x1"), std::string::npos);
    }
  }
}

}  // namespace
}  // namespace harel::testing
