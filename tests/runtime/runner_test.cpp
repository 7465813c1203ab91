// DurableRunner end to end on real stores: the example order workflow driven
// through relay and sweep, checked the way a user would check it.
#include "harel/runtime/runner.h"

#include <filesystem>
#include <thread>

#include <gtest/gtest.h>

#include "harel/errors.h"
#include "harel/store/dynamodb_store.h"
#include "harel/store/memory_store.h"
#include "harel/store/sqlite_store.h"
#include "runtime/example_definitions.h"
#include "support/servers.h"

namespace harel::runtime {
namespace {

namespace fs = std::filesystem;

struct Backend {
  std::string name;
  std::function<std::unique_ptr<ExecutionStore>()> make;
};

std::string temp_db() {
  static int n = 0;
  const fs::path p = fs::temp_directory_path() / ("harel-runner-" + std::to_string(::getpid()) + "-" +
                                                  std::to_string(++n) + ".db");
  fs::remove(p);
  return p.string();
}

void PrintTo(const Backend& b, std::ostream* os) { *os << b.name; }

class RunnerEndToEnd : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override {
    store_ = GetParam().make();
    RunnerOptions options;
    options.trace = true;
    runner_ = std::make_unique<DurableRunner>(*store_, example_definitions(), options);
  }

  // Relays and sweeps until nothing moves and every listed execution is terminal.
  void drain(const std::vector<std::string>& ids) {
    for (int round = 0; round < 500; ++round) {
      const auto moved = runner_->relay_once() + runner_->sweep_once();
      bool all_terminal = true;
      for (const auto& id : ids) all_terminal = all_terminal && is_terminal(store_->load(id)->status);
      if (all_terminal && moved == 0) return;
      if (moved == 0) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    FAIL() << "workflows did not finish";
  }

  std::unique_ptr<ExecutionStore> store_;
  std::unique_ptr<DurableRunner> runner_;
};

TEST_P(RunnerEndToEnd, OrdersReachTheirOutcomesWithEveryTimerFiredOnceAndNothingStranded) {
  runner_->create("ledger", {}, "ledger");
  const std::vector<std::pair<std::string, std::string>> orders = {
      {"card", "success"}, {"voucher", "failed"}, {"cancel", "cancelled"}, {"card", "success"}};
  std::vector<std::string> ids;
  for (std::size_t i = 0; i < orders.size(); ++i) {
    const std::string id = "order-" + std::to_string(i);
    ids.push_back(id);
    EXPECT_EQ(runner_->create("order", {}, id).version, 1);
    EXPECT_EQ(runner_->process(id, make_event("AddItem")), ProcessOutcome::Handled);
    if (orders[i].first == "cancel")
      EXPECT_EQ(runner_->process(id, make_event("Cancel")), ProcessOutcome::Handled);
    else
      EXPECT_EQ(runner_->process(id, make_event("Pay", {{"method", orders[i].first}})), ProcessOutcome::Handled);
  }
  drain(ids);

  for (std::size_t i = 0; i < orders.size(); ++i) {
    const auto exe = store_->load(ids[i]);
    EXPECT_EQ(exe->outcome, orders[i].second) << ids[i];
    if (orders[i].first != "cancel") {
      EXPECT_EQ(exe->children.size(), 2u);  // the fork ran as two children, both joined
      for (const auto& [child_id, child] : exe->children) {
        EXPECT_TRUE(child.finished);
        EXPECT_TRUE(store_->load(child_id)) << child_id;
      }
    }
    EXPECT_FALSE(store_->read_trace(ids[i]).empty());
  }
  EXPECT_EQ(store_->load("ledger")->context.at("orders").as_int64(), 2);
  EXPECT_EQ(runner_->stats().timers_fired.load(), 3);  // one per paid order, exactly once
  EXPECT_EQ(runner_->stats().spawns_created.load(), 6);
  EXPECT_TRUE(store_->pending_outbox().empty());
  EXPECT_TRUE(store_->pending_spawns().empty());
  EXPECT_TRUE(store_->due_timers(4102444800.0).empty());
}

TEST_P(RunnerEndToEnd, AnEventIsAppliedOnceHoweverOftenItIsDelivered) {
  runner_->create("ledger", {}, "ledger");
  const Event done{"order-7:6:0", "OrderDone", std::nullopt, std::nullopt, {}, {}};
  EXPECT_EQ(runner_->process("ledger", done), ProcessOutcome::Handled);
  EXPECT_EQ(runner_->process("ledger", done), ProcessOutcome::Duplicate);

  // A second runner (another worker) delivering the same event concurrently.
  DurableRunner other(*store_, example_definitions());
  std::vector<std::thread> racers;
  const Event again{"order-8:6:0", "OrderDone", std::nullopt, std::nullopt, {}, {}};
  for (int i = 0; i < 4; ++i)
    racers.emplace_back([&, i] { (i % 2 ? other : *runner_).process("ledger", again); });
  for (auto& t : racers) t.join();
  EXPECT_EQ(store_->load("ledger")->context.at("orders").as_int64(), 2);
  EXPECT_EQ(runner_->process("nobody", done), ProcessOutcome::NotFound);
}

TEST_P(RunnerEndToEnd, CreatingAnExistingIdIsAnError) {
  runner_->create("ledger", {}, "ledger");
  EXPECT_THROW(runner_->create("ledger", {}, "ledger"), InvalidArgument);
  EXPECT_THROW(runner_->create("no-such-definition"), InvalidArgument);
  EXPECT_EQ(store_->load("ledger")->version, 1);
}

TEST_P(RunnerEndToEnd, StaleTimerIsUnhandledAndDeleted) {
  const std::string id = "order-stale";
  runner_->create("order", {}, id);
  runner_->process(id, make_event("Pay", {{"method", "card"}}));
  ASSERT_EQ(store_->due_timers(4102444800.0).size(), 1u);
  // The carrier answers before the timeout: the state is left and its timer cancelled.
  EXPECT_EQ(runner_->process(id, make_event("CarrierAssigned")), ProcessOutcome::Handled);
  EXPECT_TRUE(store_->due_timers(4102444800.0).empty());
}

INSTANTIATE_TEST_SUITE_P(
    Stores, RunnerEndToEnd,
    ::testing::Values(Backend{"Memory", [] { return std::make_unique<MemoryStore>(); }},
                      Backend{"Sqlite", [] { return std::make_unique<SqliteStore>(temp_db()); }},
                      Backend{"DynamoDBLocal",
                              [] {
                                DynamoDBConnect c;
                                c.endpoint_url = harel::testing::dynamodb_local_endpoint();
                                c.store.prefix = harel::testing::unique_prefix("runner");
                                return std::unique_ptr<ExecutionStore>(DynamoDBStore::create(c));
                              }}),
    [](const ::testing::TestParamInfo<Backend>& p) { return p.param.name; });

}  // namespace
}  // namespace harel::runtime
