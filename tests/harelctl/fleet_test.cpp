// A fleet: three `harelctl worker` processes share one SQLite file (store and
// transport); one is killed with SIGKILL mid-run. Afterwards every order is at
// its outcome, each event was applied once, and nothing is stranded.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <thread>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_future.hpp>
#include <gtest/gtest.h>

#include "harel/runtime/async_runner.h"
#include "harel/store/sqlite_store.h"
#include "harel/transport/sqlite_transport.h"
#include "runtime/example_definitions.h"
#include "support/temp_dir.h"

namespace harel {
namespace {

namespace asio = boost::asio;
using namespace std::chrono_literals;

constexpr int kOrders = 60;

pid_t start_worker(const std::string& db, const std::string& log) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(fd, 1);
    ::dup2(fd, 2);
    const std::string store = "sqlite:" + db;
    // Short leases and grace, so the killed worker's share comes back within the test.
    ::execl(HARELCTL_PATH, "harelctl", "--store", store.c_str(), "worker", "--concurrency", "16", "--visibility", "2",
            "--grace", "1", "--status-every", "1", static_cast<char*>(nullptr));
    ::_exit(127);
  }
  return pid;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

Event scripted(const std::string& id, const std::string& step, std::string kind, boost::json::object data = {}) {
  return Event{id + ":" + step, std::move(kind), std::nullopt, std::nullopt, std::move(data), {}};
}

TEST(Fleet, ThreeWorkerProcessesOneKilledEveryOrderAppliedOnceNothingStranded) {
  harel::testing::TempDir dir;
  const std::string db = dir.file("fleet.db");
  SqliteStore store(db);
  SqliteTransport transport(db);
  {
    // Start the orders and queue their events, as `harelctl create` and `send` would.
    asio::io_context io;
    const auto async_store = make_async_store(store, io.get_executor(), 0);
    const auto async_transport = make_async_transport(transport, io.get_executor(), 0);
    runtime::AsyncRunner runner(*async_store, runtime::example_definitions(), {}, async_transport.get());
    auto setup = [&]() -> asio::awaitable<void> {
      co_await runner.create(std::string("ledger"), boost::json::object(), std::string("ledger"));
      for (int n = 0; n < kOrders; ++n) co_await runner.create(std::string("order"), boost::json::object(), "order-" + std::to_string(n));
    };
    auto done = asio::co_spawn(io, setup(), asio::use_future);
    io.run();
    done.get();
  }
  for (int n = 0; n < kOrders; ++n) {
    const std::string id = "order-" + std::to_string(n);
    std::vector<Publication> events;
    for (int item = 0; item <= n % 3; ++item)
      events.push_back({id, scripted(id, "add-" + std::to_string(item), "AddItem"), std::nullopt});
    if (n % 10 == 9)
      events.push_back({id, scripted(id, "cancel", "Cancel"), std::nullopt});
    else
      events.push_back({id, scripted(id, "pay", "Pay", {{"method", n % 10 == 8 ? "voucher" : "card"}}), std::nullopt});
    transport.publish(events);
  }

  std::vector<pid_t> workers;
  for (int i = 0; i < 3; ++i) workers.push_back(start_worker(db, dir.file("worker-" + std::to_string(i) + ".log")));
  // Kill one once the fleet is under way (its leases and unacked rows must come back).
  const auto deadline = std::chrono::steady_clock::now() + 120s;
  auto terminal = [&] {
    int n = 0;
    for (int i = 0; i < kOrders; ++i) n += is_terminal(store.load("order-" + std::to_string(i))->status);
    return n;
  };
  while (terminal() < kOrders / 6 && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(5ms);
  ASSERT_EQ(::kill(workers[0], SIGKILL), 0);
  int status = 0;
  ::waitpid(workers[0], &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status));

  int success = 0;
  for (int n = 0; n < kOrders; ++n) success += (n % 10 != 9 && n % 10 != 8);
  auto settled = [&] {
    const auto ledger = store.load("ledger");
    return terminal() == kOrders && ledger->context.at("orders").as_int64() == success &&
           transport.backlog().pending == 0 && store.pending_outbox().empty() && store.pending_spawns().empty();
  };
  while (!settled() && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(50ms);
  std::this_thread::sleep_for(1500ms);  // long enough for a status line (every second) from each survivor

  for (std::size_t i = 1; i < workers.size(); ++i) ::kill(workers[i], SIGTERM);
  for (std::size_t i = 1; i < workers.size(); ++i) {
    ::waitpid(workers[i], &status, 0);
    const std::string log = read_file(dir.file("worker-" + std::to_string(i) + ".log"));
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << log;  // a graceful stop
    EXPECT_NE(log.find("stopped"), std::string::npos) << log;
    EXPECT_NE(log.find("events/s"), std::string::npos) << log;  // the status line
  }

  ASSERT_TRUE(settled()) << "the fleet did not finish: " << terminal() << "/" << kOrders << " orders terminal, "
                         << transport.backlog().pending << " messages pending";
  for (int n = 0; n < kOrders; ++n) {
    const auto exe = store.load("order-" + std::to_string(n));
    const std::string want = n % 10 == 9 ? "cancelled" : n % 10 == 8 ? "failed" : "success";
    EXPECT_EQ(exe->outcome, want) << exe->id;
    // Each scripted event, timeout and child report applied once: items + Pay/Cancel (+ Timeout + 2 Finished).
    EXPECT_EQ(exe->processed_events, (n % 3 + 1) + 1 + (n % 10 == 9 ? 0 : 3)) << exe->id;
  }
  EXPECT_EQ(store.load("ledger")->context.at("orders").as_int64(), success);
  EXPECT_TRUE(store.due_timers(4102444800.0).empty());
  EXPECT_TRUE(transport.parked().empty());
}

}  // namespace
}  // namespace harel
