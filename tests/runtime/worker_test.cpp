// Worker: the transport's consumer, on real stores and transports — orders end
// to end, poison isolation (unknown definitions, corrupt records, throwing
// actions), graceful shutdown under load; and the runner's relay isolating
// poison without a transport.
#include "harel/runtime/worker.h"

#include <sqlite3.h>

#include <thread>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_future.hpp>
#include <gtest/gtest.h>

#include "harel/errors.h"
#include "harel/runtime/runner.h"
#include "harel/store/memory_store.h"
#include "harel/store/sqlite_store.h"
#include "harel/transport/memory_transport.h"
#include "harel/transport/sqlite_transport.h"
#include "runtime/example_definitions.h"
#include "support/temp_dir.h"

namespace harel::runtime {
namespace {

namespace asio = boost::asio;
using std::chrono::milliseconds;

Event scripted(const std::string& id, const std::string& step, std::string kind, boost::json::object data = {}) {
  return Event{id + ":" + step, std::move(kind), std::nullopt, std::nullopt, std::move(data), {}};
}

// A store and a transport on one event loop, with the runner core over them.
class WorkerFixture : public ::testing::Test {
 protected:
  void open(std::unique_ptr<ExecutionStore> store, std::unique_ptr<Transport> transport) {
    store_ = std::move(store);
    transport_ = std::move(transport);
    // SQLite the way harelctl drives it: with group commit.
    if (auto* sqlite = dynamic_cast<SqliteStore*>(store_.get()))
      async_store_ = make_async_store(*sqlite, io_.get_executor());
    else
      async_store_ = make_async_store(*store_, io_.get_executor(), 0);
    async_transport_ = make_async_transport(*transport_, io_.get_executor(), 1);
    RunnerOptions options;
    options.on_kept = [this](const std::string& line) { kept_.push_back(line); };
    runner_ = std::make_unique<AsyncRunner>(*async_store_, example_definitions(), options, async_transport_.get());
  }
  void open_sqlite() {
    db_ = dir_.file("worker.db");
    open(std::make_unique<SqliteStore>(db_), std::make_unique<SqliteTransport>(db_));
  }
  void TearDown() override {
    runner_.reset();
    async_transport_.reset();
    async_store_.reset();
  }

  template <class T>
  T run(asio::awaitable<T> op) {
    auto f = asio::co_spawn(io_, std::move(op), asio::use_future);
    io_.restart();
    io_.run();
    return f.get();
  }

  WorkerOptions fast_options() {
    WorkerOptions o;
    o.once = true;
    o.concurrency = 16;
    o.retry_delay = milliseconds(1);
    o.max_retry_delay = milliseconds(5);
    o.defer_delay = milliseconds(60000);  // a deferred event stays out of the way of the drain
    o.on_error = [this](const std::string& line) { errors_.push_back(line); };
    return o;
  }

  // Runs a worker with `options` until it is drained (options.once).
  std::unique_ptr<Worker> drain(WorkerOptions options) {
    auto worker = std::make_unique<Worker>(*runner_, *async_store_, *async_transport_, std::move(options));
    run([&]() -> asio::awaitable<int> {
      co_await worker->run();
      co_return 0;
    }());
    return worker;
  }

  // Creates order `id` and queues its script: items, then Pay (or Cancel).
  void queue_order(const std::string& id, const std::string& method) {
    run(runner_->create("order", {}, id));
    std::vector<Publication> events{{id, scripted(id, "add", "AddItem"), std::nullopt}};
    if (method == "cancel")
      events.push_back({id, scripted(id, "cancel", "Cancel"), std::nullopt});
    else
      events.push_back({id, scripted(id, "pay", "Pay", {{"method", method}}), std::nullopt});
    transport_->publish(events);
  }

  // Drains until every execution in `ids` is terminal (timers fire on the
  // worker's recovery passes).
  void drain_until_terminal(const std::vector<std::string>& ids) {
    for (int round = 0; round < 100; ++round) {
      drain(fast_options());
      bool all = true;
      for (const auto& id : ids) all = all && is_terminal(store_->load(id)->status);
      if (all) return;
      std::this_thread::sleep_for(milliseconds(20));
    }
    FAIL() << "workflows did not finish";
  }

  // Four orders of every outcome through the worker, checked end to end.
  void run_orders_end_to_end();

  void corrupt(const std::string& id) {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(db_.c_str(), &db), SQLITE_OK);
    const std::string sql = "UPDATE executions SET data = '{not json' WHERE id = '" + id + "'";
    EXPECT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK);
    sqlite3_close(db);
  }

  harel::testing::TempDir dir_;
  std::string db_;
  asio::io_context io_;
  std::unique_ptr<ExecutionStore> store_;
  std::unique_ptr<Transport> transport_;
  std::unique_ptr<AsyncExecutionStore> async_store_;
  std::unique_ptr<AsyncTransport> async_transport_;
  std::unique_ptr<AsyncRunner> runner_;
  std::vector<std::string> kept_, errors_;
};

void WorkerFixture::run_orders_end_to_end() {
  run(runner_->create("ledger", {}, std::string("ledger")));
  const std::vector<std::pair<std::string, std::string>> orders = {
      {"card", "success"}, {"voucher", "failed"}, {"cancel", "cancelled"}, {"card", "success"}};
  std::vector<std::string> ids;
  for (std::size_t i = 0; i < orders.size(); ++i) {
    ids.push_back("order-" + std::to_string(i));
    queue_order(ids.back(), orders[i].first);
  }
  drain_until_terminal(ids);
  drain(fast_options());  // the ledger's last OrderDone

  for (std::size_t i = 0; i < orders.size(); ++i) EXPECT_EQ(store_->load(ids[i])->outcome, orders[i].second);
  EXPECT_EQ(store_->load("ledger")->context.at("orders").as_int64(), 2);
  EXPECT_EQ(runner_->stats().duplicates.load(), 0);
  EXPECT_EQ(runner_->stats().conflicts_retried.load(), 0);
  EXPECT_EQ(runner_->stats().recovered.load(), 0);  // delivered right after each commit
  EXPECT_EQ(runner_->stats().timers_fired.load(), 3);
  // Six children's Finished reports and two OrderDone, however the transport settles them.
  EXPECT_EQ(runner_->stats().outbox_delivered.load(), 8);
  EXPECT_TRUE(store_->pending_outbox().empty());
  EXPECT_TRUE(store_->pending_spawns().empty());
  EXPECT_EQ(transport_->backlog().pending, 0);
  EXPECT_TRUE(store_->due_timers(4102444800.0).empty());
  EXPECT_TRUE(errors_.empty()) << errors_.front();
}

TEST_F(WorkerFixture, OrdersRunEndToEndOnADurableTransport) {
  open_sqlite();
  run_orders_end_to_end();
}

// A memory transport loses its messages with the process, so the outbox rows
// and timers stay in the store until each event is applied (Settlement).
TEST_F(WorkerFixture, OrdersRunEndToEndOnAnInProcessTransport) {
  db_ = dir_.file("worker.db");
  open(std::make_unique<SqliteStore>(db_), std::make_unique<MemoryTransport>());
  run_orders_end_to_end();
}

TEST_F(WorkerFixture, AnInProcessTransportLostInACrashLosesNoEvent) {
  db_ = dir_.file("worker.db");
  open(std::make_unique<SqliteStore>(db_), std::make_unique<MemoryTransport>());
  run(runner_->create("ledger", {}, std::string("ledger")));
  queue_order("order-1", "card");
  drain(fast_options());  // the order waits in Shipping for its children's reports

  // The process dies: its queue is gone, the store's rows are not.
  runner_.reset();
  async_transport_.reset();
  transport_ = std::make_unique<MemoryTransport>();
  async_transport_ = make_async_transport(*transport_, io_.get_executor(), 0);
  runner_ = std::make_unique<AsyncRunner>(*async_store_, example_definitions(), RunnerOptions{}, async_transport_.get());
  drain_until_terminal({"order-1"});  // its recovery pass republishes what was pending
  drain(fast_options());
  EXPECT_EQ(store_->load("order-1")->outcome, "success");
  EXPECT_EQ(store_->load("ledger")->context.at("orders").as_int64(), 1);
  EXPECT_TRUE(store_->pending_outbox().empty());
}


TEST_F(WorkerFixture, AnUnknownDefinitionIsDeferredAndHoldsBackNobodyElse) {
  open_sqlite();
  run(runner_->create("ledger", {}, std::string("ledger")));
  Execution stranger;
  stranger.id = "stranger";
  stranger.definition_id = "no-such-chart";
  store_->save(stranger);
  transport_->publish("stranger", scripted("stranger", "1", "Poke"));
  transport_->publish("ledger", scripted("order-1", "done", "OrderDone"));

  const auto worker = drain(fast_options());
  EXPECT_EQ(store_->load("ledger")->context.at("orders").as_int64(), 1);
  EXPECT_EQ(worker->stats().deferred.load(), 1);
  EXPECT_EQ(worker->stats().parked.load(), 0);
  EXPECT_TRUE(transport_->parked().empty());
  EXPECT_EQ(transport_->backlog().pending, 1);  // kept for a worker that knows the chart
  EXPECT_FALSE(store_->is_processed("stranger", "stranger:1"));
}

TEST_F(WorkerFixture, ACorruptTargetIsParkedAfterItsAttemptsAndCanBeRequeued) {
  open_sqlite();
  run(runner_->create("ledger", {}, std::string("ledger")));
  run(runner_->create("ledger", {}, std::string("broken")));
  corrupt("broken");
  transport_->publish("broken", scripted("order-1", "done", "OrderDone"));
  transport_->publish("ledger", scripted("order-2", "done", "OrderDone"));

  WorkerOptions options = fast_options();
  options.max_attempts = 3;
  // The failed event comes back after its retry delay: drain until it is parked.
  std::int64_t retried = 0, parked = 0;
  for (int round = 0; round < 50 && parked == 0; ++round) {
    const auto worker = drain(options);
    retried += worker->stats().retried.load();
    parked += worker->stats().parked.load();
    std::this_thread::sleep_for(milliseconds(10));
  }
  EXPECT_EQ(retried, 2);
  EXPECT_EQ(parked, 1);
  EXPECT_EQ(store_->load("ledger")->context.at("orders").as_int64(), 1);
  const auto items = transport_->parked();
  ASSERT_EQ(items.size(), 1u);
  EXPECT_EQ(items[0].group_id, "broken");
  EXPECT_EQ(items[0].attempts, 3);
  EXPECT_NE(items[0].last_error.find("broken"), std::string::npos) << items[0].last_error;
  EXPECT_EQ(transport_->backlog().pending, 0);
  EXPECT_EQ(transport_->requeue(items[0].id), 1);
  EXPECT_EQ(transport_->backlog().pending, 1);
}

TEST_F(WorkerFixture, AThrowingActionFailsItsExecutionAndTheEventIsAcked) {
  open(std::make_unique<MemoryStore>(), std::make_unique<MemoryTransport>());
  run(runner_->create("ledger", {{"orders", "not a number"}}, std::string("ledger")));
  transport_->publish("ledger", scripted("order-1", "done", "OrderDone"));
  const auto worker = drain(fast_options());
  const auto ledger = store_->load("ledger");
  EXPECT_EQ(ledger->status, Status::Failed);
  ASSERT_TRUE(ledger->error);
  EXPECT_NE(ledger->error->find("increment"), std::string::npos) << *ledger->error;
  EXPECT_EQ(worker->stats().acked.load(), 1);
  EXPECT_EQ(worker->stats().retried.load(), 0);
  EXPECT_EQ(transport_->backlog().pending, 0);
}

TEST_F(WorkerFixture, StopUnderLoadFinishesWhatIsInFlightAndLeavesNothingLeased) {
  open_sqlite();
  run(runner_->create("ledger", {}, std::string("ledger")));
  constexpr int kEvents = 400;
  std::vector<Publication> events;
  for (int i = 0; i < kEvents; ++i)
    events.push_back({"ledger", scripted("order-" + std::to_string(i), "done", "OrderDone"), std::nullopt});
  transport_->publish(events);
  // 40 executions' worth of groups too, so that many leases are in flight at once.
  for (int i = 0; i < 40; ++i) run(runner_->create("ledger", {}, "ledger-" + std::to_string(i)));
  std::vector<Publication> spread;
  for (int i = 0; i < 400; ++i)
    spread.push_back({"ledger-" + std::to_string(i % 40), scripted("s" + std::to_string(i), "done", "OrderDone"),
                      std::nullopt});
  transport_->publish(spread);

  WorkerOptions options = fast_options();
  options.once = false;
  Worker worker(*runner_, *async_store_, *async_transport_, options);
  std::thread stopper([&] {
    while (worker.stats().acked < 50) std::this_thread::sleep_for(milliseconds(1));
    worker.stop();
  });
  run([&]() -> asio::awaitable<int> {
    co_await worker.run();
    co_return 0;
  }());
  stopper.join();
  EXPECT_EQ(worker.stats().in_flight.load(), 0);
  EXPECT_EQ(worker.stats().acked.load(), worker.stats().claimed.load());  // everything claimed was finished
  EXPECT_LT(worker.stats().acked.load(), 2 * kEvents);

  // Nothing stays leased: another worker finds every remaining message at once.
  drain(fast_options());
  std::int64_t total = store_->load("ledger")->context.at("orders").as_int64();
  for (int i = 0; i < 40; ++i) total += store_->load("ledger-" + std::to_string(i))->context.at("orders").as_int64();
  EXPECT_EQ(total, 2 * kEvents);
  EXPECT_EQ(transport_->backlog().pending, 0);
}

TEST(RelayWithoutTransport, APoisonRowIsKeptAndTheRowsBehindItAreDelivered) {
  harel::testing::TempDir dir;
  SqliteStore store(dir.file("relay.db"));
  std::vector<std::string> kept;
  RunnerOptions options;
  options.on_kept = [&](const std::string& line) { kept.push_back(line); };
  DurableRunner runner(store, example_definitions(), options);
  runner.create("ledger", {}, "ledger");
  Execution stranger;
  stranger.id = "stranger";
  stranger.definition_id = "no-such-chart";
  store.save(stranger);
  // An outbox row for the stranger ahead of one for the ledger.
  Execution source;
  source.id = "source";
  source.definition_id = "order";
  Effects fx;
  fx.emits.push_back({"stranger", scripted("source", "1", "Poke")});
  fx.emits.push_back({"ledger", scripted("source", "2", "OrderDone")});
  store.commit(source, fx);

  EXPECT_EQ(runner.relay_once(), 1);
  EXPECT_EQ(store.load("ledger")->context.at("orders").as_int64(), 1);
  const auto pending = store.pending_outbox();
  ASSERT_EQ(pending.size(), 1u);
  EXPECT_EQ(pending[0].target_id, "stranger");
  ASSERT_EQ(kept.size(), 1u);
  EXPECT_NE(kept[0].find("unknown definition 'no-such-chart'"), std::string::npos) << kept[0];
  EXPECT_EQ(runner.stats().kept.load(), 1);
}

}  // namespace
}  // namespace harel::runtime
