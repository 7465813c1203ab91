// 32 writers racing on ONE execution — threads sharing a store, and two
// processes with their own stores — on Memory, SQLite and DynamoDB Local.
// Each writer loops load → append its tag to context.log → commit with one
// emit carrying the tag; StoreConflict is the expected way to lose.
//
// Proven afterwards: exactly one winner per version (the winners' versions
// are 2, 3, ... with no gap or repeat), final version = 1 + reported wins,
// no lost update (the stored log is every winner's tag, in version order),
// and the outbox holds each winner's emit exactly once, in version order, and
// nothing of a loser.
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <functional>
#include <mutex>
#include <thread>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <gtest/gtest.h>

#include "harel/dynamodb/http_client.h"
#include "harel/errors.h"
#include "harel/store/async_dynamodb_store.h"
#include "harel/store/dynamodb_store.h"
#include "harel/store/memory_store.h"
#include "harel/store/sqlite_store.h"
#include "reliability/fixtures.h"
#include "support/servers.h"
#include "support/temp_dir.h"

namespace harel::testing {
namespace {

namespace fs = std::filesystem;

constexpr const char* kId = "contended";
constexpr int kWriters = 32;

struct Win {
  std::int64_t version;
  std::string tag;
};

// One writer's loop; returns its wins. Anything but StoreConflict propagates.
std::vector<Win> write_loop(ExecutionStore& store, const std::string& who, int attempts) {
  std::vector<Win> wins;
  for (int i = 0; i < attempts; ++i) {
    Execution e = *store.load(kId);
    const std::string tag = who + "." + std::to_string(i);
    e.context["log"].as_array().emplace_back(tag);
    Effects fx;
    fx.emits.push_back({"sink", tick(tag)});
    std::this_thread::sleep_for(std::chrono::microseconds(100));  // let the others load the same version
    try {
      store.commit(e, fx);
      wins.push_back({e.version, tag});
    } catch (const StoreConflict&) {
    }
  }
  return wins;
}

// `writers` threads of write_loop on `store`, released together.
std::vector<Win> race_threads(ExecutionStore& store, const std::string& who, int writers, int attempts) {
  std::mutex mutex;
  std::vector<Win> wins;
  std::exception_ptr failure;
  std::atomic<int> ready{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < writers; ++t) {
    threads.emplace_back([&, t] {
      ++ready;
      while (ready.load() < writers) std::this_thread::yield();
      try {
        auto mine = write_loop(store, who + std::to_string(t), attempts);
        std::lock_guard lock(mutex);
        wins.insert(wins.end(), mine.begin(), mine.end());
      } catch (...) {
        std::lock_guard lock(mutex);
        failure = std::current_exception();
      }
    });
  }
  for (auto& th : threads) th.join();
  if (failure) std::rethrow_exception(failure);
  return wins;
}

void seed(ExecutionStore& store) {
  Execution e = new_execution(kId);
  store.save(e);
}

void expect_one_winner_per_version(ExecutionStore& store, std::vector<Win> wins, const std::string& what) {
  std::sort(wins.begin(), wins.end(), [](const Win& a, const Win& b) { return a.version < b.version; });
  std::printf("races %s: %d writers, %zu wins\n", what.c_str(), kWriters, wins.size());
  ASSERT_FALSE(wins.empty());
  const Execution e = *store.load(kId);
  EXPECT_EQ(e.version, 1 + static_cast<std::int64_t>(wins.size())) << "final version = number of reported wins";
  boost::json::array log;
  std::vector<std::string> tags;
  for (std::size_t i = 0; i < wins.size(); ++i) {
    ASSERT_EQ(wins[i].version, 2 + static_cast<std::int64_t>(i)) << "two winners of one version, or a gap";
    log.emplace_back(wins[i].tag);
    tags.push_back(wins[i].tag);
  }
  EXPECT_EQ(e.context.at("log").as_array(), log) << "a lost update";
  std::vector<std::string> outbox;
  for (const OutboxEntry& o : store.pending_outbox()) outbox.push_back(o.event.id);
  EXPECT_EQ(outbox, tags) << "each winner's emit exactly once, in version order, nothing of a loser";
}

// ------------------------------------------------------------------ threads

TEST(Races, ThreadsOnMemoryStore) {
  MemoryStore store;
  seed(store);
  expect_one_winner_per_version(store, race_threads(store, "t", kWriters, 40), "memory/threads");
}


TEST(Races, ThreadsOnSqliteStore) {
  TempDir dir;
  SqliteStore store(dir.file("races.db"), {.sync_full = false});
  seed(store);
  expect_one_winner_per_version(store, race_threads(store, "t", kWriters, 15), "sqlite/threads");
}

// A store on DynamoDB Local whose client has a connection per writer, so all
// 32 really are in flight at once.
std::unique_ptr<DynamoDBStore> dynamodb_store(boost::asio::io_context& io, const std::string& prefix) {
  dynamodb::HttpClientOptions options;
  options.max_connections = kWriters;
  auto client = std::make_shared<dynamodb::HttpDynamoClient>(
      io.get_executor(), dynamodb::resolve_settings({dynamodb_local_endpoint(), {}, {}, {}}), options);
  return std::make_unique<DynamoDBStore>(client, DynamoDBStoreOptions{.prefix = prefix});
}

std::string dynamodb_tables() {
  DynamoDBConnect connect;
  connect.endpoint_url = dynamodb_local_endpoint();
  connect.store.prefix = unique_prefix("races");
  seed(*DynamoDBStore::create(connect));
  return connect.store.prefix;
}

TEST(Races, ThreadsOnDynamoDBLocal) {
  const std::string prefix = dynamodb_tables();
  boost::asio::io_context io;
  auto store = dynamodb_store(io, prefix);
  expect_one_winner_per_version(*store, race_threads(*store, "t", kWriters, 6), "dynamodb-local/threads");
}

// 32 async tasks on ONE event-loop thread, each a load → commit loop on
// AsyncDynamoDBStore: the interleaving comes from the loop, not from threads.
TEST(Races, AsyncTasksOnOneLoopOnDynamoDBLocal) {
  const std::string prefix = dynamodb_tables();
  boost::asio::io_context io;
  dynamodb::HttpClientOptions options;
  options.max_connections = kWriters;
  auto client = std::make_shared<dynamodb::HttpDynamoClient>(
      io.get_executor(), dynamodb::resolve_settings({dynamodb_local_endpoint(), {}, {}, {}}), options);
  AsyncDynamoDBStore async_store(client, DynamoDBStoreOptions{.prefix = prefix});
  std::vector<Win> wins;
  std::exception_ptr failure;
  for (int t = 0; t < kWriters; ++t) {
    boost::asio::co_spawn(
        io,
        [&, t]() -> boost::asio::awaitable<void> {
          for (int i = 0; i < 6; ++i) {
            auto load = async_store.async_load(kId, boost::asio::use_awaitable);
            Execution e = *co_await std::move(load);
            const std::string tag = "a" + std::to_string(t) + "." + std::to_string(i);
            e.context["log"].as_array().emplace_back(tag);
            Effects fx;
            fx.emits.push_back({"sink", tick(tag)});
            auto commit = async_store.async_commit(e, fx, boost::asio::as_tuple(boost::asio::use_awaitable));
            auto [error, receipt] = co_await std::move(commit);
            if (!error) {
              wins.push_back({e.version, tag});
            } else {
              try {
                std::rethrow_exception(error);
              } catch (const StoreConflict&) {  // lost the race for this version
              }
            }
          }
        },
        [&](std::exception_ptr e) {
          if (e) failure = e;
        });
  }
  io.run();
  if (failure) std::rethrow_exception(failure);
  DynamoDBStore check(client, DynamoDBStoreOptions{.prefix = prefix});
  expect_one_winner_per_version(check, wins, "dynamodb-local/async-one-loop");
}

// ------------------------------------------------------------------ processes

// Forks `processes` children that each open their own store (`open`) and
// race kWriters / processes threads; returns every child's wins. The parent
// must have no threads and no open store when this is called.
std::vector<Win> race_processes(const std::function<std::unique_ptr<ExecutionStore>()>& open, int attempts) {
  constexpr int kProcesses = 2;
  TempDir dir;
  int start[2];
  if (pipe(start) != 0) throw std::runtime_error("pipe failed");
  std::vector<pid_t> children;
  for (int p = 0; p < kProcesses; ++p) {
    const pid_t pid = fork();
    if (pid < 0) throw std::runtime_error("fork failed");
    if (pid == 0) {
      close(start[1]);
      int status = 1;
      try {
        auto store = open();
        char c;
        while (read(start[0], &c, 1) > 0) {  // released when the parent closes the pipe
        }
        const auto wins = race_threads(*store, "p" + std::to_string(p) + "t", kWriters / kProcesses, attempts);
        std::ofstream out(dir.file("wins" + std::to_string(p)));
        for (const Win& w : wins) out << w.version << ' ' << w.tag << '\n';
        status = out.good() ? 0 : 1;
      } catch (const std::exception& e) {
        std::fprintf(stderr, "racing process %d: %s\n", p, e.what());
      }
      _exit(status);
    }
    children.push_back(pid);
  }
  close(start[0]);
  close(start[1]);
  std::vector<Win> wins;
  for (int p = 0; p < kProcesses; ++p) {
    int status = 0;
    if (waitpid(children[static_cast<std::size_t>(p)], &status, 0) < 0 || !WIFEXITED(status) ||
        WEXITSTATUS(status) != 0)
      throw std::runtime_error("racing process " + std::to_string(p) + " failed");
    std::ifstream in(dir.file("wins" + std::to_string(p)));
    Win w;
    while (in >> w.version >> w.tag) wins.push_back(w);
  }
  return wins;
}

TEST(Races, TwoProcessesOnOneSqliteFile) {
  TempDir dir;
  const std::string path = dir.file("races.db");
  {
    SqliteStore store(path);
    seed(store);
  }  // closed before fork: a child must not inherit an open connection
  const auto wins = race_processes([&] { return std::make_unique<SqliteStore>(path, SqliteOptions{.sync_full = false}); }, 15);
  SqliteStore store(path);
  expect_one_winner_per_version(store, wins, "sqlite/2 processes");
}

TEST(Races, TwoProcessesOnDynamoDBLocal) {
  const std::string prefix = dynamodb_tables();  // its client (and resolver thread) is gone before fork
  const auto wins = race_processes(
      [&]() -> std::unique_ptr<ExecutionStore> {
        static boost::asio::io_context io;  // the child's own; it ends with _exit
        return dynamodb_store(io, prefix);
      },
      6);
  boost::asio::io_context io;
  expect_one_winner_per_version(*dynamodb_store(io, prefix), wins, "dynamodb-local/2 processes");
}

}  // namespace
}  // namespace harel::testing
