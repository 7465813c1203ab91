// AsyncDynamoDBStore: the whole contract through its asynchronous API, and
// what only an asynchronous store can show — overlap, completion tokens,
// cancellation.
#include <chrono>
#include <future>
#include <thread>

#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/use_future.hpp>
#include <boost/system/system_error.hpp>

#include "harel/dynamodb/http_client.h"
#include "harel/errors.h"
#include "harel/store/async_dynamodb_store.h"
#include "store/contract.h"
#include "dynamodb/fake_server.h"
#include "store/raw_dynamodb.h"
#include "support/servers.h"

namespace harel::testing {
namespace {

namespace asio = boost::asio;

// The contract's ExecutionStore over the async API: each call starts the
// async operation with use_future and waits, while one thread runs the loop.
class FutureAdapter final : public ExecutionStore {
 public:
  explicit FutureAdapter(const std::string& endpoint) : work_(io_.get_executor()), loop_([this] { io_.run(); }) {
    DynamoDBConnect connect;
    connect.endpoint_url = endpoint;
    connect.store.prefix = unique_prefix("async");
    store_ = AsyncDynamoDBStore::async_create(io_.get_executor(), connect, asio::use_future).get();
  }
  ~FutureAdapter() override { close(); }

  std::optional<Execution> load(std::string_view id) override { return store_->async_load(id, asio::use_future).get(); }
  LoadForEvent load_for_event(std::string_view id, std::string_view ev) override {
    return store_->async_load_for_event(id, ev, asio::use_future).get();
  }
  ExecutionPage list_executions(const ListQuery& q) override {
    return store_->async_list_executions(q, asio::use_future).get();
  }
  CommitReceipt commit(Execution& exe, const Effects& fx) override {
    store_->set_trace_max(trace_max());
    return store_->async_commit(exe, fx, asio::use_future).get();
  }
  bool is_processed(std::string_view id, std::string_view ev) override {
    return store_->async_is_processed(id, ev, asio::use_future).get();
  }
  std::vector<OutboxEntry> pending_outbox() override { return store_->async_pending_outbox(asio::use_future).get(); }
  void ack_outbox(std::int64_t seq) override { store_->async_ack_outbox(seq, asio::use_future).get(); }
  std::vector<SpawnEntry> pending_spawns() override { return store_->async_pending_spawns(asio::use_future).get(); }
  void ack_spawn(std::int64_t seq) override { store_->async_ack_spawn(seq, asio::use_future).get(); }
  std::vector<DueTimer> due_timers(EpochSeconds now) override {
    return store_->async_due_timers(now, asio::use_future).get();
  }
  bool delete_timer(std::string_view id, std::string_view path, EpochSeconds at) override {
    return store_->async_delete_timer(id, path, at, asio::use_future).get();
  }
  std::vector<TraceStep> read_trace(std::string_view id) override {
    return store_->async_read_trace(id, asio::use_future).get();
  }
  void append_trace(std::string_view id, const TraceStep& entry) override {
    store_->set_trace_max(trace_max());
    store_->async_append_trace(id, entry, asio::use_future).get();
  }
  void close() override {
    if (!loop_.joinable()) return;
    store_.reset();
    work_.reset();
    loop_.join();
  }
  const std::string& prefix() const { return store_->prefix(); }

 private:
  asio::io_context io_;
  asio::executor_work_guard<asio::io_context::executor_type> work_;
  std::thread loop_;
  std::unique_ptr<AsyncDynamoDBStore> store_;
};

StoreFactory async_factory(std::string name, std::string (*endpoint)(), bool atomic_under_concurrency) {
  return {std::move(name), [endpoint] { return std::make_unique<FutureAdapter>(endpoint()); },
          [endpoint](ExecutionStore& store, const std::string& id, const std::string& raw) {
            put_raw_execution_data(endpoint(), dynamic_cast<FutureAdapter&>(store).prefix(), id, raw);
          },
          atomic_under_concurrency};
}

HAREL_INSTANTIATE_STORE_CONTRACT(AsyncDynamoDBLocal, async_factory("AsyncDynamoDBLocal", dynamodb_local_endpoint, true));
HAREL_INSTANTIATE_STORE_CONTRACT(AsyncMoto, async_factory("AsyncMoto", moto_endpoint, false));

// ------------------------------------------------------------------ one thread, many requests

class AsyncStore : public ::testing::Test {
 protected:
  void SetUp() override {
    DynamoDBConnect connect;
    connect.endpoint_url = dynamodb_local_endpoint();
    connect.store.prefix = unique_prefix("async");
    AsyncDynamoDBStore::async_create(io_.get_executor(), connect,
                                     [this](std::exception_ptr e, std::unique_ptr<AsyncDynamoDBStore> s) {
                                       if (e) std::rethrow_exception(e);
                                       store_ = std::move(s);
                                     });
    io_.run();
    io_.restart();
    ASSERT_TRUE(store_);
  }

  asio::io_context io_;
  std::unique_ptr<AsyncDynamoDBStore> store_;
};

TEST_F(AsyncStore, CoroutinesCallbacksAndFuturesAllWork) {
  bool done = false;
  asio::co_spawn(
      io_,
      [&]() -> asio::awaitable<void> {
        Execution e;
        e.id = "co-1";
        e.definition_id = "order";
        co_await store_->async_save(e, asio::use_awaitable);
        EXPECT_EQ(e.version, 1);
        auto loaded = co_await store_->async_load("co-1", asio::use_awaitable);
        EXPECT_TRUE(loaded && loaded->version == 1);
        Execution stale = *loaded;
        co_await store_->async_save(e, asio::use_awaitable);
        try {
          co_await store_->async_save(stale, asio::use_awaitable);
          ADD_FAILURE() << "expected StoreConflict";
        } catch (const StoreConflict& c) {
          EXPECT_EQ(c.found(), 2);
        }
        done = true;
      },
      asio::detached);
  io_.run();
  EXPECT_TRUE(done);
}

// Overlap is a property of the client and store, not of the server's speed:
// against a loopback server that takes 20 ms per answer, 64 loads started at
// once on one thread must finish in far fewer round trips than 64 in a row.
TEST(AsyncStoreOverlap, ManyConcurrentLoadsOnOneThreadOverlap) {
  constexpr int kOps = 64;
  constexpr auto kServerDelay = std::chrono::milliseconds(20);
  FakeServer server;
  const std::string item =
      R"({"Item":{"data":{"S":"{\"id\":\"hot\",\"definition_id\":\"order\",\"version\":1}"}}})";
  server.script(std::vector<FakeServer::Reply>(2 * kOps, FakeServer::respond(200, item, kServerDelay)));

  asio::io_context io;
  dynamodb::HttpClientOptions http;
  http.max_connections = 16;
  auto client = std::make_shared<dynamodb::HttpDynamoClient>(
      io.get_executor(), dynamodb::resolve_settings({server.url(), {}, {}, {}}), http);
  AsyncDynamoDBStore store(client, DynamoDBStoreOptions{});

  using clock = std::chrono::steady_clock;
  // Sequential: each load starts when the previous one completed.
  int sequential_left = kOps;
  std::function<void()> next = [&] {
    store.async_load("hot", [&](std::exception_ptr err, std::optional<Execution> got) {
      ASSERT_FALSE(err);
      ASSERT_TRUE(got);
      if (--sequential_left > 0) next();
    });
  };
  const auto t0 = clock::now();
  next();
  io.run();
  io.restart();
  const auto sequential = clock::now() - t0;

  // Concurrent: all started at once on the same single thread.
  int concurrent_done = 0;
  const auto t1 = clock::now();
  for (int i = 0; i < kOps; ++i)
    store.async_load("hot", [&](std::exception_ptr err, std::optional<Execution> got) {
      ASSERT_FALSE(err);
      ASSERT_TRUE(got);
      ++concurrent_done;
    });
  io.run();
  const auto concurrent = clock::now() - t1;

  EXPECT_EQ(sequential_left, 0);
  EXPECT_EQ(concurrent_done, kOps);
  // 64 round trips in a row against at most 4 rounds over 16 connections;
  // asserted loosely (a shared machine) as a factor of 4.
  EXPECT_LT(concurrent * 4, sequential) << "sequential " << std::chrono::duration<double, std::milli>(sequential).count()
                                        << " ms, concurrent "
                                        << std::chrono::duration<double, std::milli>(concurrent).count() << " ms";
}

TEST_F(AsyncStore, CommitCancelledBeforeItsTransactionWritesNothing) {
  Execution e;
  e.id = "cancel-me";
  e.definition_id = "order";
  Effects fx;
  fx.emits.push_back({"t", Event{"ev1", "Go", std::nullopt, std::nullopt, {}, {}}});
  fx.processed_event_id = "evA";
  asio::cancellation_signal signal;
  std::exception_ptr outcome;
  store_->async_commit(e, fx, asio::bind_cancellation_slot(signal.slot(), [&](std::exception_ptr err, CommitReceipt) { outcome = err; }));
  signal.emit(asio::cancellation_type::terminal);  // before the loop ran a single step
  io_.run();
  io_.restart();

  ASSERT_TRUE(outcome);
  try {
    std::rethrow_exception(outcome);
  } catch (const boost::system::system_error& err) {
    EXPECT_EQ(err.code(), asio::error::operation_aborted);
  }
  EXPECT_EQ(e.version, 0);
  auto loaded = store_->async_load("cancel-me", asio::use_future);
  auto outbox = store_->async_pending_outbox(asio::use_future);
  auto processed = store_->async_is_processed("cancel-me", "evA", asio::use_future);
  io_.run();
  EXPECT_FALSE(loaded.get());
  EXPECT_TRUE(outbox.get().empty());
  EXPECT_FALSE(processed.get());
}

TEST_F(AsyncStore, AClosedStoreRefusesNewOperations) {
  store_->close();  // it created its client: released now
  try {
    store_->async_load("x", asio::use_future);
    FAIL() << "expected StoreClosed";
  } catch (const BackendError& e) {
    EXPECT_EQ(e.code(), "StoreClosed");
  }
}

TEST_F(AsyncStore, InjectedClientStaysTheCallersAfterClose) {
  // A store built over an injected client leaves it usable after close().
  auto client = std::make_shared<dynamodb::HttpDynamoClient>(
      io_.get_executor(), dynamodb::resolve_settings({dynamodb_local_endpoint(), {}, {}, {}}));
  DynamoDBStoreOptions options;
  options.prefix = store_->prefix();
  {
    AsyncDynamoDBStore borrowed(client, options);
    borrowed.close();
  }
  auto tables = client->async_call("ListTables", {}, asio::use_future);
  io_.run();
  EXPECT_TRUE(tables.get().as_object().contains("TableNames"));
}

// A sequence that backs off (a table still CREATING) waits on a timer the
// run makes only then; the wait is real, and the run completes after it.
TEST(AsyncStoreBackoff, EnsureTablesWaitsOutACreatingTable) {
  class CreatingOnceClient final : public dynamodb::DynamoClient {
   public:
    explicit CreatingOnceClient(asio::io_context& io) : io_(io) {}
    boost::json::value call(std::string_view operation, const boost::json::object&) override {
      if (operation != "DescribeTable") return boost::json::object();
      const char* status = describes++ == 0 ? "CREATING" : "ACTIVE";
      return boost::json::object{{"Table", {{"TableStatus", status}}}};
    }
    asio::any_io_executor executor() const override { return io_.get_executor(); }
    int describes = 0;

   private:
    asio::io_context& io_;
  };
  asio::io_context io;
  auto client = std::make_shared<CreatingOnceClient>(io);
  AsyncDynamoDBStore store(client, {});
  std::exception_ptr outcome;
  bool done = false;
  const auto start = std::chrono::steady_clock::now();
  store.async_ensure_tables([&](std::exception_ptr e) {
    outcome = e;
    done = true;
  });
  io.run();
  const auto waited = std::chrono::steady_clock::now() - start;
  ASSERT_TRUE(done);
  EXPECT_FALSE(outcome);
  EXPECT_EQ(client->describes, 7 + 1);  // the first table asked twice
  EXPECT_GE(waited, std::chrono::milliseconds(150));  // the store's 200 ms pause, loosely
}

}  // namespace
}  // namespace harel::testing
