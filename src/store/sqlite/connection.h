// A thin RAII layer over the SQLite C API for SqliteStore: one connection,
// prepared statements that live as long as it, and errors raised as
// BackendError("sqlite", "SQLITE_…") naming the file.
//
// Not thread-safe: SqliteStore serializes every use behind its mutex.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <thread>

#include "harel/errors.h"

struct sqlite3;
struct sqlite3_stmt;

namespace harel::store::sqlite {

// The symbolic name of an SQLite result code's primary part ("SQLITE_BUSY").
std::string_view code_name(int rc) noexcept;

// How often retry_busy runs a transaction before giving up.
inline constexpr int kBusyAttempts = 4;

// Whether a BackendError code means another connection held a lock, i.e.
// the whole transaction may simply be run again.
bool is_busy(std::string_view code) noexcept;

class Connection {
 public:
  // Opens (creating) the file read-write with extended result codes and the
  // busy timeout set.
  Connection(std::string path, std::chrono::milliseconds busy_timeout);
  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  const std::string& path() const noexcept { return path_; }

  // Runs SQL (one or more statements), discarding any rows: schema, pragmas.
  void exec(const char* sql);

  // Rows changed by the last INSERT / UPDATE / DELETE.
  std::int64_t changes() const noexcept;
  // The rowid of the last row this connection inserted.
  std::int64_t last_insert_rowid() const noexcept;

  // BEGIN IMMEDIATE: takes the file's write lock now (waiting up to the busy
  // timeout), so a transaction never fails later on a read→write upgrade.
  void begin_immediate();
  void commit();
  // Rolls back the open transaction, if any (SQLite ends some failed
  // transactions itself). Never throws: it runs while an error propagates.
  void rollback() noexcept;

  // Raises BackendError for result code `rc` of `doing`.
  [[noreturn]] void fail(int rc, std::string_view doing) const;

  // A persistent prepared statement; the caller finalizes it.
  sqlite3_stmt* prepare(std::string_view sql);

 private:
  void step_once(sqlite3_stmt* stmt);
  void close() noexcept;

  std::string path_;
  sqlite3* db_ = nullptr;
  sqlite3_stmt* begin_ = nullptr;
  sqlite3_stmt* commit_ = nullptr;
  sqlite3_stmt* rollback_ = nullptr;
};

// Runs `body` in one write transaction; any exception rolls it back.
template <class F>
void write_transaction(Connection& conn, F&& body) {
  conn.begin_immediate();
  try {
    body();
    conn.commit();
  } catch (...) {
    conn.rollback();
    throw;
  }
}

// Runs `f` again, a bounded number of times with a short growing pause, while
// it fails with SQLITE_BUSY / SQLITE_LOCKED: the busy timeout covers most
// waits for another connection's lock, but SQLite answers BUSY at once in a
// few cases (e.g. while another process recovers the WAL) and after the
// timeout itself. `f` must be a whole transaction (or a single statement),
// so running it again is safe.
template <class F>
decltype(auto) retry_busy(F&& f) {
  for (int attempt = 1;; ++attempt) {
    try {
      return f();
    } catch (const BackendError& e) {
      if (attempt == kBusyAttempts || !is_busy(e.code())) throw;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(attempt * attempt));
  }
}

// A statement prepared once (SQLITE_PREPARE_PERSISTENT) and reused.
class Statement {
 public:
  Statement(Connection& conn, std::string_view sql);
  ~Statement();
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

 private:
  friend class Query;
  Connection& conn_;
  sqlite3_stmt* stmt_ = nullptr;
};

// One run of a Statement: bind (1-based), step, read columns (0-based). The
// destructor resets the statement and clears its bindings, so a half-read
// result never keeps a read snapshot open. Text binds are not copied: the
// bound bytes must outlive the Query.
class Query {
 public:
  explicit Query(Statement& s) noexcept : s_(s) {}
  ~Query();
  Query(const Query&) = delete;
  Query& operator=(const Query&) = delete;

  Query& bind(int i, std::string_view text);
  Query& bind_nullable(int i, const std::optional<std::string>& text);  // nullopt → NULL
  Query& bind(int i, std::int64_t n);
  Query& bind(int i, double d);

  // Steps once: true with a row to read, false when done.
  bool next();
  // Steps to completion (a statement that returns no rows).
  void run();

  bool is_null(int col) const noexcept;
  std::string_view text(int col) const noexcept;
  std::int64_t integer(int col) const noexcept;
  double real(int col) const noexcept;

 private:
  void check_bind(int rc);
  Statement& s_;
};

}  // namespace harel::store::sqlite
