// AsyncRunner: many order workflows advanced concurrently by one thread on
// AsyncDynamoDBStore (DynamoDB Local), its deliveries made right after each
// commit, its timers swept asynchronously.
#include "harel/runtime/async_runner.h"

#include "harel/store/async_dynamodb_store.h"


#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/use_future.hpp>
#include <gtest/gtest.h>

#include "runtime/example_definitions.h"
#include "support/servers.h"

namespace harel::runtime {
namespace {

namespace asio = boost::asio;

TEST(AsyncRunner, ManyExecutionsConcurrentlyOnOneThread) {
  constexpr int kOrders = 40;
  asio::io_context io;
  DynamoDBConnect connect;
  connect.endpoint_url = harel::testing::dynamodb_local_endpoint();
  connect.store.prefix = harel::testing::unique_prefix("arun");
  std::unique_ptr<AsyncDynamoDBStore> store;
  AsyncDynamoDBStore::async_create(io.get_executor(), connect,
                                   [&](std::exception_ptr e, std::unique_ptr<AsyncDynamoDBStore> s) {
                                     if (e) std::rethrow_exception(e);
                                     store = std::move(s);
                                   });
  io.run();
  io.restart();
  ASSERT_TRUE(store);

  const auto async_store = make_async_store(*store);
  AsyncRunner runner(*async_store, example_definitions());

  int finished = 0;
  std::exception_ptr failure;
  auto order = [&](int n) -> asio::awaitable<void> {
    const std::string id = "order-" + std::to_string(n);
    co_await runner.create(std::string("order"), boost::json::object(), id);
    Event pay = make_event("Pay", {{"method", n % 4 == 3 ? "voucher" : "card"}});
    co_await runner.process(id, std::move(pay));
  };
  auto body = [&]() -> asio::awaitable<void> {
    co_await runner.create(std::string("ledger"), boost::json::object(), std::string("ledger"));
    for (int n = 0; n < kOrders; ++n)  // all in flight at once on this thread
      asio::co_spawn(io, order(n), [&](std::exception_ptr e) {
        if (e) failure = e;
        ++finished;
      });
    asio::steady_timer idle(io);
    for (int round = 0; round < 400; ++round) {
      const std::int64_t relayed = co_await runner.relay_once();
      const std::int64_t swept = co_await runner.sweep_once();
      if (finished == kOrders && relayed + swept == 0 && runner.stats().timers_fired == kOrders) co_return;
      idle.expires_after(std::chrono::milliseconds(20));
      auto wait = idle.async_wait(asio::use_awaitable);
      co_await std::move(wait);
    }
  };
  asio::co_spawn(io, body(), [&](std::exception_ptr e) {
    if (e) failure = e;
  });
  io.run();
  if (failure) std::rethrow_exception(failure);

  int success = 0;
  for (int n = 0; n < kOrders; ++n) {
    auto f = store->async_load("order-" + std::to_string(n), asio::use_future);
    io.restart();
    io.run();
    const auto exe = f.get();
    ASSERT_TRUE(exe);
    EXPECT_EQ(exe->outcome, n % 4 == 3 ? "failed" : "success") << exe->id;
    success += exe->outcome == "success";
  }
  auto ledger = store->async_load("ledger", asio::use_future);
  io.restart();
  io.run();
  EXPECT_EQ(ledger.get()->context.at("orders").as_int64(), success);
  EXPECT_EQ(runner.stats().timers_fired.load(), kOrders);
  EXPECT_EQ(runner.stats().spawns_created.load(), 2 * kOrders);
  // Everything was delivered right after its commit: recovery found nothing.
  EXPECT_EQ(runner.stats().recovered.load(), 0);
}

}  // namespace
}  // namespace harel::runtime
