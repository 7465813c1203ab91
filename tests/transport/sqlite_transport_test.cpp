// SqliteTransport: what only a file-backed transport can get wrong — durability
// across reopen, sharing the file with a SqliteStore, corrupt rows, several
// processes claiming from one file. The shared behaviour is the contract
// suite, instantiated at the end of this file.
#include "harel/transport/sqlite_transport.h"

#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <fstream>
#include <map>
#include <stdexcept>
#include <thread>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "harel/store/sqlite_store.h"
#include "support/temp_dir.h"
#include "transport/contract.h"

namespace harel::testing {
namespace {

using namespace std::chrono_literals;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

constexpr std::chrono::milliseconds kLong = 30s;

// Runs `sql` on a connection of its own, beside the transport's; returns the
// first column of the last row ("" when none).
std::string raw_sql(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  if (sqlite3_open(path.c_str(), &db) != SQLITE_OK) throw std::runtime_error("cannot open " + path);
  sqlite3_busy_timeout(db, 5000);
  std::string out;
  char* error = nullptr;
  const int rc = sqlite3_exec(
      db, sql.c_str(),
      [](void* result, int, char** values, char**) {
        *static_cast<std::string*>(result) = values[0] ? values[0] : "";
        return 0;
      },
      &out, &error);
  const std::string message = error ? error : "";
  sqlite3_free(error);
  sqlite3_close(db);
  if (rc != SQLITE_OK) throw std::runtime_error(sql + ": " + message);
  return out;
}

Event make_event(const std::string& id) {
  Event ev;
  ev.id = id;
  ev.kind = "Go";
  return ev;
}

Lease claim_one(Transport& t) {
  auto leases = t.claim("w", kLong);
  if (leases.size() != 1) throw std::runtime_error("expected one lease, got " + std::to_string(leases.size()));
  return std::move(leases.front());
}

class SqliteTransportTest : public ::testing::Test {
 protected:
  TempDir dir_;
  const std::string path_ = dir_.file("harel.db");
};

// ------------------------------------------------------------------ durability

TEST_F(SqliteTransportTest, MessagesLeasesParkedOnesAndDedupeIdsSurviveReopening) {
  Lease held;
  {
    SqliteTransport t(path_);
    t.publish(std::vector<Publication>{{"g", make_event("a"), "d1"}, {"g", make_event("b"), std::nullopt},
                                       {"h", make_event("c"), std::nullopt}});
    held = claim_one(t);  // a
    ASSERT_TRUE(t.park(claim_one(t), "c failed"));
    t.close();
  }
  SqliteTransport t(path_);
  const TransportBacklog backlog = t.backlog();
  EXPECT_EQ(backlog.pending, 2);
  EXPECT_EQ(backlog.parked, 1);
  EXPECT_THAT(t.claim("w", kLong), IsEmpty()) << "a's lease is in the file, not in the closed object";
  EXPECT_TRUE(t.ack(held)) << "a token names its claim across reopening";
  EXPECT_EQ(claim_one(t).event.id, "b");
  ASSERT_EQ(t.parked().size(), 1u);
  EXPECT_EQ(t.parked()[0].last_error, "c failed");
  t.publish(std::vector<Publication>{{"g", make_event("a-again"), "d1"}});
  EXPECT_EQ(t.backlog().pending, 1) << "the dedupe id is remembered in the file";
}

// ------------------------------------------------------------------ sharing the store's file

TEST_F(SqliteTransportTest, SharesAFileWithASqliteStoreInEitherOpeningOrder) {
  for (const bool transport_first : {true, false}) {
    SCOPED_TRACE(transport_first ? "transport first" : "store first");
    const std::string path = dir_.file(transport_first ? "t-first.db" : "s-first.db");
    std::optional<SqliteTransport> transport;
    std::optional<SqliteStore> store;
    if (transport_first) transport.emplace(path);
    store.emplace(path);
    if (!transport_first) transport.emplace(path);

    Execution exe;
    exe.id = "x1";
    exe.definition_id = "order";
    Effects effects;
    effects.emits.push_back({"x1", make_event("e1")});
    store->commit(exe, effects);
    transport->publish("x1", make_event("e1"));
    transport->close();
    store->close();

    // Both reopen what the other wrote beside them; the store's schema
    // version is the store's.
    SqliteStore reopened_store(path);
    SqliteTransport reopened_transport(path);
    ASSERT_TRUE(reopened_store.load("x1"));
    EXPECT_EQ(reopened_store.pending_outbox().size(), 1u);
    EXPECT_EQ(claim_one(reopened_transport).event.id, "e1");
    EXPECT_EQ(raw_sql(path, "PRAGMA user_version"), "1");
  }
}

// ------------------------------------------------------------------ corrupt rows

TEST_F(SqliteTransportTest, AStoredEventThatDoesNotDecodeIsParkedAndTheQueueGoesOn) {
  SqliteTransport t(path_);
  t.publish(std::vector<Publication>{{"g", make_event("a"), std::nullopt}, {"g", make_event("b"), std::nullopt},
                                     {"h", make_event("c"), std::nullopt}});
  const std::string bad_id = raw_sql(path_, "SELECT id FROM queue_messages ORDER BY id LIMIT 1");
  raw_sql(path_, "UPDATE queue_messages SET event = '{\"id\": 5' WHERE id = " + bad_id);

  const Lease b = claim_one(t);
  EXPECT_EQ(b.event.id, "b") << "the bad head is parked and its group goes on in the same claim";
  const auto parked = t.parked();
  ASSERT_EQ(parked.size(), 1u);
  EXPECT_EQ(parked[0].id, bad_id);
  EXPECT_EQ(parked[0].group_id, "g");
  EXPECT_EQ(parked[0].attempts, 0);
  EXPECT_THAT(parked[0].last_error, HasSubstr("message " + bad_id));
  EXPECT_THAT(parked[0].last_error, HasSubstr("does not decode"));
  const Lease c = claim_one(t);
  EXPECT_EQ(c.event.id, "c");

  // Requeued, it is parked again by the next claim that meets it.
  ASSERT_TRUE(t.ack(b));
  ASSERT_TRUE(t.ack(c));
  EXPECT_EQ(t.requeue(bad_id), 1);
  EXPECT_THAT(t.claim("w", kLong), IsEmpty());
  EXPECT_EQ(t.backlog().parked, 1);
}

// ------------------------------------------------------------------ processes

// What one claimer saw of one message, on the system-wide monotonic clock.
struct Handled {
  int group = 0;
  std::int64_t seq = 0;
  std::int64_t claimed_ns = 0;  // after claim returned
  std::int64_t acking_ns = 0;   // just before ack was called
};

std::int64_t monotonic_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// A child's loop: claims and acks until the queue is empty, logging each
// message to `log`. Returns the exit status (0 = every ack succeeded).
int claim_until_empty(const std::string& path, const std::string& log, int max_messages) {
  SqliteTransport t(path, {.sync_full = false});
  std::ofstream out(log);
  const auto deadline = std::chrono::steady_clock::now() + 60s;
  while (std::chrono::steady_clock::now() < deadline) {
    const auto leases = t.claim("p", kLong, max_messages);
    const std::int64_t claimed = monotonic_ns();
    if (leases.empty()) {
      if (t.backlog().pending == 0) return 0;
      std::this_thread::sleep_for(1ms);
      continue;
    }
    for (const Lease& lease : leases) {
      const std::int64_t acking = monotonic_ns();
      if (!t.ack(lease)) return 2;
      out << lease.group_id.substr(1) << ' ' << lease.event.data.at("seq").as_int64() << ' ' << claimed << ' '
          << acking << '\n';
    }
  }
  return 3;
}

TEST_F(SqliteTransportTest, ProcessesClaimingFromOneFileKeepEachGroupExclusiveAndInOrder) {
  constexpr int kProcesses = 4;
  constexpr int kGroups = 20;
  constexpr int kMessages = 1000;
  {
    SqliteTransport t(path_, {.sync_full = false});
    std::vector<Publication> all;
    for (int i = 0; i < kMessages; ++i) {
      Event ev = make_event(std::to_string(i));
      ev.data = {{"seq", i / kGroups}};
      all.push_back({"g" + std::to_string(i % kGroups), std::move(ev), std::nullopt});
    }
    t.publish(all);
  }
  std::vector<pid_t> children;
  for (int p = 0; p < kProcesses; ++p) {
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      int status = 1;
      try {
        status = claim_until_empty(path_, dir_.file("log" + std::to_string(p)), 1 + p % 2);
      } catch (...) {
      }
      _exit(status);
    }
    children.push_back(pid);
  }
  for (pid_t pid : children) {
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0) << "1: failed, 2: an ack found its lease gone, 3: timed out";
  }

  std::map<int, std::vector<Handled>> by_group;
  for (int p = 0; p < kProcesses; ++p) {
    std::ifstream in(dir_.file("log" + std::to_string(p)));
    Handled h;
    while (in >> h.group >> h.seq >> h.claimed_ns >> h.acking_ns) by_group[h.group].push_back(h);
  }
  ASSERT_EQ(by_group.size(), static_cast<std::size_t>(kGroups));
  for (auto& [group, handled] : by_group) {
    std::sort(handled.begin(), handled.end(),
              [](const Handled& a, const Handled& b) { return a.claimed_ns < b.claimed_ns; });
    ASSERT_EQ(handled.size(), static_cast<std::size_t>(kMessages / kGroups)) << "group g" << group;
    for (std::size_t i = 0; i < handled.size(); ++i) {
      EXPECT_EQ(handled[i].seq, static_cast<std::int64_t>(i)) << "group g" << group << " out of order";
      // The next message was claimed only after this one's ack began.
      if (i > 0) {
        EXPECT_GT(handled[i].claimed_ns, handled[i - 1].acking_ns) << "group g" << group << " overlapped";
      }
    }
  }
  SqliteTransport t(path_);
  EXPECT_EQ(t.backlog().pending, 0);
}

// ------------------------------------------------------------------ the contract

// Each contract test gets its own file in one directory per test process.
// synchronous=NORMAL: the contract is about semantics, not fsync.
TempDir& contract_dir() {
  static TempDir dir;
  return dir;
}

TransportFactory sqlite_factory() {
  return {"Sqlite", [] {
            static std::atomic<int> n{0};
            return std::make_unique<SqliteTransport>(contract_dir().file("contract-" + std::to_string(++n) + ".db"),
                                                     SqliteTransportOptions{.sync_full = false});
          }};
}

HAREL_INSTANTIATE_TRANSPORT_CONTRACT(Sqlite, sqlite_factory());

}  // namespace
}  // namespace harel::testing
