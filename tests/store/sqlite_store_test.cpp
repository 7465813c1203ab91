// SqliteStore: what only a file-backed store can get wrong — durability across
// reopen, the schema version, corrupt rows, several connections and processes
// racing on one file, lock waits. The shared behaviour is the contract suite,
// instantiated at the end of this file.
#include "harel/store/sqlite_store.h"

#include <sqlite3.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <optional>
#include <set>
#include <stdexcept>
#include <thread>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "harel/errors.h"
#include "store/contract.h"
#include "support/temp_dir.h"
#include "support/thrown.h"

namespace harel::testing {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using ::testing::HasSubstr;


// A second, raw connection to the file: how tests look under the store.
class RawDb {
 public:
  explicit RawDb(const std::string& path) {
    if (sqlite3_open(path.c_str(), &db_) != SQLITE_OK) throw std::runtime_error("cannot open " + path);
    sqlite3_busy_timeout(db_, 5000);
  }
  ~RawDb() { sqlite3_close(db_); }
  RawDb(const RawDb&) = delete;
  RawDb& operator=(const RawDb&) = delete;

  // Runs `sql` with `params` bound as text, in order; returns the first
  // column of the first row ("" when there is none).
  std::string query(const std::string& sql, std::initializer_list<std::string> params = {}) {
    sqlite3_stmt* stmt = nullptr;
    if (sqlite3_prepare_v2(db_, sql.c_str(), -1, &stmt, nullptr) != SQLITE_OK)
      throw std::runtime_error(sqlite3_errmsg(db_));
    int i = 0;
    for (const auto& p : params) sqlite3_bind_text(stmt, ++i, p.c_str(), -1, SQLITE_TRANSIENT);
    std::string out;
    int rc = sqlite3_step(stmt);
    if (rc == SQLITE_ROW && sqlite3_column_text(stmt, 0))
      out = reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0));
    while (rc == SQLITE_ROW) rc = sqlite3_step(stmt);
    sqlite3_finalize(stmt);
    if (rc != SQLITE_DONE) throw std::runtime_error(sql + ": " + sqlite3_errmsg(db_));
    return out;
  }

 private:
  sqlite3* db_ = nullptr;
};

Execution make_execution(const std::string& id) {
  Execution e;
  e.id = id;
  e.definition_id = "order";
  e.context = {{"n", 0}};
  return e;
}

Event make_event(const std::string& id) {
  Event ev;
  ev.id = id;
  ev.kind = "Go";
  return ev;
}

Effects one_emit(const std::string& target, const std::string& event_id) {
  Effects fx;
  fx.emits.push_back({target, make_event(event_id)});
  return fx;
}

class SqliteStoreTest : public ::testing::Test {
 protected:
  TempDir dir_;
  const std::string path_ = dir_.file("harel.db");
};

// ------------------------------------------------------------------ durability

TEST_F(SqliteStoreTest, EverythingSurvivesCloseAndReopen) {
  Execution child = make_execution("x1.Fork.A.0");
  {
    SqliteStore store(path_);
    Execution e = make_execution("x1");
    Effects fx;
    fx.emits = {{"p", make_event("e1")}, {std::nullopt, make_event("e2")}};
    fx.spawns = {{"x1.Fork.A.0", "Fork.A", {{"seed", 1}}}};
    fx.timers = {TimerOp::schedule("Waiting", 1764669600.25)};
    fx.processed_event_id = "evA";
    fx.trace = TraceStep{{"event_kind", "Start"}};
    store.commit(e, fx);
    Effects more;
    more.emits = {{"q", make_event("e3")}};
    more.trace = TraceStep{{"event_kind", "Go"}};
    store.commit(e, more);
    child.parent_id = "x1";
    child.status = Status::Running;
    store.save(child);
    store.close();
  }

  SqliteStore store(path_);
  const auto x1 = store.load("x1");
  ASSERT_TRUE(x1);
  EXPECT_EQ(x1->version, 2);
  EXPECT_EQ(store.load("x1.Fork.A.0"), child);
  std::vector<std::string> outbox;
  for (const auto& o : store.pending_outbox()) outbox.push_back(o.event.id);
  EXPECT_THAT(outbox, ElementsAre("e1", "e2", "e3"));
  EXPECT_FALSE(store.pending_outbox()[1].target_id);
  ASSERT_EQ(store.pending_spawns().size(), 1u);
  EXPECT_EQ(store.pending_spawns()[0].context, (boost::json::object{{"seed", 1}}));
  EXPECT_THAT(store.due_timers(2e9), ElementsAre(DueTimer{"x1", "Waiting", 1764669600.25}));
  EXPECT_TRUE(store.is_processed("x1", "evA"));
  const auto trace = store.read_trace("x1");
  ASSERT_EQ(trace.size(), 2u);
  EXPECT_EQ(trace[0], (TraceStep{{"event_kind", "Start"}, {"index", 0}}));
  EXPECT_EQ(trace[1], (TraceStep{{"event_kind", "Go"}, {"index", 1}}));

  ListQuery roots;
  roots.roots_only = true;
  const auto page = store.list_executions(roots);
  ASSERT_EQ(page.items.size(), 1u);
  EXPECT_EQ(page.items[0].id, "x1");
}

// ------------------------------------------------------------------ group commit

TEST_F(SqliteStoreTest, AGroupCommitsInOneTransactionAndAFailedWriteRollsBackAlone) {
  SqliteStore store(path_);
  Execution a = make_execution("a");
  Execution b = make_execution("b");
  store.save(a);
  Execution stale = *store.load("a");
  store.commit(a, one_emit("t", "first"));  // stale is now one version behind
  Execution c = make_execution("c");
  const std::int64_t first = store.pending_outbox().at(0).seq;

  const std::vector<std::function<void()>> writes = {
      [&] { store.commit(b, one_emit("t", "from-b")); },
      [&] { store.commit(stale, one_emit("t", "lost")); },  // a lost CAS
      [&] { store.ack_outbox(first); },
      [&] { store.commit(c, one_emit("t", "from-c")); },
  };
  const auto errors = store.write_group(writes);
  ASSERT_EQ(errors.size(), 4u);
  EXPECT_FALSE(errors[0]);
  EXPECT_THROW(std::rethrow_exception(errors[1]), StoreConflict);
  EXPECT_FALSE(errors[2]);
  EXPECT_FALSE(errors[3]);
  EXPECT_EQ(b.version, 1);
  EXPECT_EQ(c.version, 1);
  EXPECT_EQ(stale.version, 1);  // the lost commit left its execution as it was
  store.close();

  SqliteStore reopened(path_);  // what a group returned is on disk
  std::vector<std::string> outbox;
  for (const auto& o : reopened.pending_outbox()) outbox.push_back(o.event.id);
  EXPECT_THAT(outbox, ElementsAre("from-b", "from-c"));  // "first" acked in the group, "lost" never written
  EXPECT_EQ(reopened.load("a")->version, 2);
  EXPECT_EQ(reopened.load("b")->version, 1);
}

TEST_F(SqliteStoreTest, AProcessThatDiesWithoutClosingLosesNoCommit) {
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    try {
      auto* store = new SqliteStore(path_);  // never closed: the process just ends
      Execution e = make_execution("x1");
      store->commit(e, Effects{{{"t", make_event("e1")}}, {}, {}, {}, {}});
      store->save(e);
    } catch (...) {
      _exit(1);
    }
    _exit(0);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  SqliteStore store(path_);
  EXPECT_EQ(store.load("x1")->version, 2);
  EXPECT_EQ(store.pending_outbox().size(), 1u);
}

TEST_F(SqliteStoreTest, OutboxSeqsAreNeverReusedAfterAcksAndReopen) {
  std::int64_t first = 0;
  {
    SqliteStore store(path_);
    Execution e = make_execution("x1");
    store.commit(e, Effects{{{"t", make_event("e1")}}, {}, {}, {}, {}});
    first = store.pending_outbox().at(0).seq;
    store.ack_outbox(first);
  }
  SqliteStore store(path_);
  Execution e = *store.load("x1");
  store.commit(e, Effects{{{"t", make_event("e2")}}, {}, {}, {}, {}});
  EXPECT_GT(store.pending_outbox().at(0).seq, first);
}

TEST_F(SqliteStoreTest, RowsCarryTheCommittedVersionAndTheFilterColumns) {
  SqliteStore store(path_);
  Execution e = make_execution("x1");
  e.parent_id = "p0";
  e.status = Status::Running;
  store.save(e);
  store.save(e);
  RawDb raw(path_);
  EXPECT_EQ(raw.query("SELECT version FROM executions WHERE id = 'x1'"), "2");
  EXPECT_EQ(raw.query("SELECT json_extract(data, '$.version') FROM executions WHERE id = 'x1'"), "2");
  EXPECT_EQ(raw.query("SELECT status || '/' || parent_id || '/' || definition_id FROM executions"), "RUNNING/p0/order");
  // Spawn contexts are written as the reference (Python json.dumps) writes them.
  Effects fx;
  fx.spawns = {{"c", "R", {{"seed", 1}, {"s", "é"}}}};
  store.commit(e, fx);
  EXPECT_EQ(raw.query("SELECT context FROM spawns"), R"({"seed": 1, "s": "\u00e9"})");
}

TEST_F(SqliteStoreTest, ListingIsInIdOrderAndAFullLastPageHasNoCursor) {
  SqliteStore store(path_);
  for (const char* id : {"d", "b", "a", "c"}) {
    Execution e = make_execution(id);
    store.save(e);
  }
  ListQuery q;
  q.limit = 2;
  auto page = store.list_executions(q);
  ASSERT_EQ(page.items.size(), 2u);
  EXPECT_EQ(page.items[0].id, "a");
  EXPECT_EQ(page.items[1].id, "b");
  ASSERT_TRUE(page.next_cursor);
  q.cursor = page.next_cursor;
  page = store.list_executions(q);
  ASSERT_EQ(page.items.size(), 2u);
  EXPECT_EQ(page.items[0].id, "c");
  EXPECT_EQ(page.items[1].id, "d");
  EXPECT_FALSE(page.next_cursor);  // nothing after "d": no empty extra page
}

// ------------------------------------------------------------------ schema

TEST_F(SqliteStoreTest, SchemaVersionIsStampedAndTheFileIsInWalMode) {
  SqliteStore store(path_);
  RawDb raw(path_);
  EXPECT_EQ(raw.query("PRAGMA user_version"), "1");
  EXPECT_EQ(raw.query("PRAGMA journal_mode"), "wal");
}

TEST_F(SqliteStoreTest, AnEmptyExistingFileIsInitialized) {
  std::ofstream(path_).flush();
  SqliteStore store(path_);
  Execution e = make_execution("x1");
  store.save(e);
  EXPECT_TRUE(store.load("x1"));
}

TEST_F(SqliteStoreTest, AFileOfANewerSchemaIsRejectedUnchanged) {
  {
    SqliteStore store(path_);
    Execution e = make_execution("x1");
    store.save(e);
  }
  RawDb(path_).query("PRAGMA user_version = 7");
  try {
    SqliteStore store(path_);
    FAIL() << "expected BackendError";
  } catch (const BackendError& e) {
    EXPECT_EQ(e.backend(), "sqlite");
    EXPECT_EQ(e.code(), "SCHEMA_TOO_NEW");
    EXPECT_THAT(e.what(), HasSubstr(path_));
    EXPECT_THAT(e.what(), HasSubstr("schema version 7"));
    EXPECT_THAT(e.what(), HasSubstr("up to 1"));
  }
  EXPECT_EQ(RawDb(path_).query("SELECT version FROM executions WHERE id = 'x1'"), "1");
}

TEST_F(SqliteStoreTest, AFileThatIsNotADatabaseIsABackendError) {
  std::ofstream(path_) << "this is not an sqlite database, just some text long enough to have a header page";
  try {
    SqliteStore store(path_);
    FAIL() << "expected BackendError";
  } catch (const BackendError& e) {
    EXPECT_EQ(e.code(), "SQLITE_NOTADB");
    EXPECT_THAT(e.what(), HasSubstr(path_));
  }
}

TEST_F(SqliteStoreTest, AClosedStoreRefusesCalls) {
  SqliteStore store(path_);
  store.close();
  try {
    store.load("x1");
    FAIL() << "expected BackendError";
  } catch (const BackendError& e) {
    EXPECT_EQ(e.code(), "SQLITE_MISUSE");
  }
}

// ------------------------------------------------------------------ corrupt rows

TEST_F(SqliteStoreTest, CorruptRowsNameTheirTableAndKey) {
  SqliteStore store(path_);
  Execution e = make_execution("x1");
  Effects fx;
  fx.emits = {{"t", make_event("e1")}};
  fx.spawns = {{"c", "R", {}}};
  fx.trace = TraceStep{{"event_kind", "Go"}};
  store.commit(e, fx);
  RawDb raw(path_);
  raw.query("UPDATE executions SET data = 'garbage {' WHERE id = 'x1'");
  raw.query("UPDATE outbox SET event = '{\"id\": 5}'");
  raw.query("UPDATE spawns SET context = '[1]'");
  raw.query("UPDATE trace SET entry = 'nope'");

  auto c = thrown<CorruptRecord>([&] { store.load("x1"); });
  EXPECT_EQ(c.table(), "executions");
  EXPECT_EQ(c.key(), "x1");
  c = thrown<CorruptRecord>([&] { store.load_for_event("x1", "ev"); });
  EXPECT_EQ(c.key(), "x1");
  c = thrown<CorruptRecord>([&] { store.list_executions({}); });
  EXPECT_EQ(c.key(), "x1");
  c = thrown<CorruptRecord>([&] { store.pending_outbox(); });
  EXPECT_EQ(c.table(), "outbox");
  EXPECT_EQ(c.key(), raw.query("SELECT seq FROM outbox"));
  c = thrown<CorruptRecord>([&] { store.pending_spawns(); });
  EXPECT_EQ(c.table(), "spawns");
  c = thrown<CorruptRecord>([&] { store.read_trace("x1"); });
  EXPECT_EQ(c.table(), "trace");
  EXPECT_EQ(c.key(), "x1/0");
}

// ------------------------------------------------------------------ concurrency

// One racer: `attempts` times load → bump context.n → commit with an emit
// that records the version it claims. Returns how many commits won.
int race(SqliteStore& store, const std::string& who, int attempts) {
  int won = 0;
  for (int i = 0; i < attempts; ++i) {
    Execution e = *store.load("race");
    e.context["n"] = e.context["n"].as_int64() + 1;
    std::this_thread::sleep_for(std::chrono::microseconds(200));  // let the others load the same version
    Event ev = make_event(who + "-" + std::to_string(i));
    ev.data = {{"version", e.version + 1}};
    try {
      store.commit(e, Effects{{{"sink", ev}}, {}, {}, {}, {}});
      ++won;
    } catch (const StoreConflict&) {
    }
  }
  return won;
}

// Exactly one winner per version, and no lost update: the counter, the
// version and the outbox all agree with the number of wins.
void expect_consistent(const std::string& path, int wins) {
  ::testing::Test::RecordProperty("wins", wins);
  SqliteStore store(path);
  const Execution e = *store.load("race");
  EXPECT_EQ(e.version, 1 + wins);
  EXPECT_EQ(e.context.at("n").as_int64(), wins);
  std::set<std::int64_t> versions;
  const auto outbox = store.pending_outbox();
  for (const auto& o : outbox) versions.insert(o.event.data.at("version").as_int64());
  EXPECT_EQ(static_cast<int>(outbox.size()), wins);
  ASSERT_EQ(static_cast<int>(versions.size()), wins) << "two commits claimed one version";
  if (wins) {
    EXPECT_EQ(*versions.begin(), 2);
    EXPECT_EQ(*versions.rbegin(), 1 + wins);
  }
}

TEST_F(SqliteStoreTest, ProcessesRacingOnOneFileHaveOneWinnerPerVersion) {
  {
    SqliteStore store(path_);
    Execution e = make_execution("race");
    store.save(e);
  }  // closed before fork: a child must not inherit an open connection
  constexpr int kProcesses = 4;
  constexpr int kAttempts = 40;
  // The children open their stores, then wait until the parent closes the
  // pipe, so they all start racing at once.
  int start[2];
  ASSERT_EQ(pipe(start), 0);
  std::vector<pid_t> children;
  for (int p = 0; p < kProcesses; ++p) {
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      close(start[1]);
      int won = 255;  // 255 = the child failed
      try {
        SqliteStore store(path_, {.sync_full = false});
        char c;
        while (read(start[0], &c, 1) > 0) {
        }
        won = race(store, "p" + std::to_string(p), kAttempts);
      } catch (...) {
      }
      _exit(won);
    }
    children.push_back(pid);
  }
  close(start[0]);
  close(start[1]);
  int wins = 0;
  for (pid_t pid : children) {
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status));
    ASSERT_NE(WEXITSTATUS(status), 255) << "a racing process failed";
    wins += WEXITSTATUS(status);
  }
  EXPECT_GT(wins, 0);
  expect_consistent(path_, wins);
}

TEST_F(SqliteStoreTest, StoresOnOneFileInThreadsHaveOneWinnerPerVersion) {
  {
    SqliteStore store(path_);
    Execution e = make_execution("race");
    store.save(e);
  }
  constexpr int kThreads = 4;
  std::atomic<int> wins{0};
  std::atomic<int> failures{0};
  std::atomic<int> ready{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      std::optional<SqliteStore> store;
      try {
        store.emplace(path_, SqliteOptions{.sync_full = false});
      } catch (...) {
        ++failures;
      }
      ++ready;  // all start racing at once
      while (ready.load() < kThreads) std::this_thread::yield();
      try {
        if (store) wins += race(*store, "t" + std::to_string(t), 40);
      } catch (...) {
        ++failures;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);
  expect_consistent(path_, wins.load());
}

TEST_F(SqliteStoreTest, ACommitWaitsForAnotherConnectionsWriteLock) {
  SqliteStore store(path_);
  RawDb other(path_);
  other.query("BEGIN IMMEDIATE");
  std::thread release([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(150));
    other.query("COMMIT");
  });
  Execution e = make_execution("x1");
  store.save(e);  // blocks until the other writer commits, then succeeds
  release.join();
  EXPECT_EQ(e.version, 1);
  EXPECT_TRUE(store.load("x1"));
}

TEST_F(SqliteStoreTest, ALockHeldPastTheBusyTimeoutIsABusyErrorThatWritesNothing) {
  SqliteStore store(path_, {.busy_timeout = std::chrono::milliseconds(20)});
  Execution e = make_execution("x1");
  store.save(e);
  RawDb other(path_);
  other.query("BEGIN IMMEDIATE");
  Effects fx;
  fx.emits = {{"t", make_event("e1")}};
  try {
    store.commit(e, fx);
    FAIL() << "expected BackendError";
  } catch (const BackendError& err) {
    EXPECT_EQ(err.backend(), "sqlite");
    EXPECT_EQ(err.code(), "SQLITE_BUSY");
    EXPECT_THAT(err.what(), HasSubstr(path_));
  }
  EXPECT_EQ(e.version, 1);
  other.query("ROLLBACK");
  // Reads never wait for the writer (WAL), and the failed commit left nothing.
  EXPECT_EQ(store.load("x1")->version, 1);
  EXPECT_TRUE(store.pending_outbox().empty());
  store.commit(e, fx);
  EXPECT_EQ(e.version, 2);
}

TEST_F(SqliteStoreTest, ReadsDoNotWaitForAnOpenWriteTransaction) {
  SqliteStore store(path_, {.busy_timeout = std::chrono::milliseconds(20)});
  Execution e = make_execution("x1");
  store.save(e);
  RawDb other(path_);
  other.query("BEGIN IMMEDIATE");
  other.query("UPDATE executions SET version = 9");
  EXPECT_EQ(store.load("x1")->version, 1);  // the committed snapshot
  other.query("ROLLBACK");
}

// ------------------------------------------------------------------ the contract

// Each contract test gets its own file in one directory per test process.
TempDir& contract_dir() {
  static TempDir dir;
  return dir;
}

StoreFactory sqlite_factory() {
  return {"Sqlite",
          [] {
            static std::atomic<int> n{0};
            return std::make_unique<SqliteStore>(contract_dir().file("contract-" + std::to_string(++n) + ".db"));
          },
          [](ExecutionStore& store, const std::string& id, const std::string& raw) {
            RawDb(dynamic_cast<SqliteStore&>(store).path())
                .query("UPDATE executions SET data = ?1 WHERE id = ?2", {raw, id});
          }};
}

HAREL_INSTANTIATE_STORE_CONTRACT(Sqlite, sqlite_factory());

}  // namespace
}  // namespace harel::testing
