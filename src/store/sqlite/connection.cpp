#include "store/sqlite/connection.h"

#include <sqlite3.h>

#include <climits>

#include "harel/errors.h"

namespace harel::store::sqlite {

std::string_view code_name(int rc) noexcept {
  switch (rc & 0xff) {
    case SQLITE_OK: return "SQLITE_OK";
    case SQLITE_ERROR: return "SQLITE_ERROR";
    case SQLITE_INTERNAL: return "SQLITE_INTERNAL";
    case SQLITE_PERM: return "SQLITE_PERM";
    case SQLITE_ABORT: return "SQLITE_ABORT";
    case SQLITE_BUSY: return "SQLITE_BUSY";
    case SQLITE_LOCKED: return "SQLITE_LOCKED";
    case SQLITE_NOMEM: return "SQLITE_NOMEM";
    case SQLITE_READONLY: return "SQLITE_READONLY";
    case SQLITE_INTERRUPT: return "SQLITE_INTERRUPT";
    case SQLITE_IOERR: return "SQLITE_IOERR";
    case SQLITE_CORRUPT: return "SQLITE_CORRUPT";
    case SQLITE_NOTFOUND: return "SQLITE_NOTFOUND";
    case SQLITE_FULL: return "SQLITE_FULL";
    case SQLITE_CANTOPEN: return "SQLITE_CANTOPEN";
    case SQLITE_PROTOCOL: return "SQLITE_PROTOCOL";
    case SQLITE_EMPTY: return "SQLITE_EMPTY";
    case SQLITE_SCHEMA: return "SQLITE_SCHEMA";
    case SQLITE_TOOBIG: return "SQLITE_TOOBIG";
    case SQLITE_CONSTRAINT: return "SQLITE_CONSTRAINT";
    case SQLITE_MISMATCH: return "SQLITE_MISMATCH";
    case SQLITE_MISUSE: return "SQLITE_MISUSE";
    case SQLITE_NOLFS: return "SQLITE_NOLFS";
    case SQLITE_AUTH: return "SQLITE_AUTH";
    case SQLITE_FORMAT: return "SQLITE_FORMAT";
    case SQLITE_RANGE: return "SQLITE_RANGE";
    case SQLITE_NOTADB: return "SQLITE_NOTADB";
    case SQLITE_NOTICE: return "SQLITE_NOTICE";
    case SQLITE_WARNING: return "SQLITE_WARNING";
    case SQLITE_ROW: return "SQLITE_ROW";
    case SQLITE_DONE: return "SQLITE_DONE";
    default: return "SQLITE_UNKNOWN";
  }
}

bool is_busy(std::string_view code) noexcept { return code == "SQLITE_BUSY" || code == "SQLITE_LOCKED"; }

// ---------------------------------------------------------------- Connection

Connection::Connection(std::string path, std::chrono::milliseconds busy_timeout) : path_(std::move(path)) {
  // NOMUTEX: SqliteStore already serializes every use of the connection.
  const int rc = sqlite3_open_v2(path_.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
                                 nullptr);
  if (rc != SQLITE_OK) {
    // Even a failed open allocates a handle (for the message); free it here,
    // since the destructor does not run for a throwing constructor.
    const std::string message = db_ ? sqlite3_errmsg(db_) : sqlite3_errstr(rc);
    sqlite3_close(db_);
    throw BackendError("sqlite", std::string(code_name(rc)), path_ + ": cannot open: " + message);
  }
  sqlite3_extended_result_codes(db_, 1);
  const auto ms = busy_timeout.count();
  sqlite3_busy_timeout(db_, ms > INT_MAX ? INT_MAX : static_cast<int>(ms < 0 ? 0 : ms));
  try {
    begin_ = prepare("BEGIN IMMEDIATE");
    commit_ = prepare("COMMIT");
    rollback_ = prepare("ROLLBACK");
  } catch (...) {
    close();
    throw;
  }
}

Connection::~Connection() { close(); }

sqlite3_stmt* Connection::prepare(std::string_view sql) {
  sqlite3_stmt* stmt = nullptr;
  const int rc =
      sqlite3_prepare_v3(db_, sql.data(), static_cast<int>(sql.size()), SQLITE_PREPARE_PERSISTENT, &stmt, nullptr);
  if (rc != SQLITE_OK) fail(rc, "preparing " + std::string(sql));
  return stmt;
}

void Connection::close() noexcept {
  sqlite3_finalize(begin_);
  sqlite3_finalize(commit_);
  sqlite3_finalize(rollback_);
  sqlite3_close_v2(db_);
}

void Connection::step_once(sqlite3_stmt* stmt) {
  const int rc = sqlite3_step(stmt);
  sqlite3_reset(stmt);
  if (rc != SQLITE_DONE) fail(rc, sqlite3_sql(stmt));
}

void Connection::begin_immediate() { step_once(begin_); }

void Connection::commit() { step_once(commit_); }

void Connection::rollback() noexcept {
  if (sqlite3_get_autocommit(db_)) return;  // no transaction left to end
  sqlite3_step(rollback_);
  sqlite3_reset(rollback_);
}

void Connection::exec(const char* sql) {
  const int rc = sqlite3_exec(db_, sql, nullptr, nullptr, nullptr);
  if (rc != SQLITE_OK) fail(rc, sql);
}

std::int64_t Connection::changes() const noexcept { return sqlite3_changes64(db_); }

std::int64_t Connection::last_insert_rowid() const noexcept { return sqlite3_last_insert_rowid(db_); }

void Connection::fail(int rc, std::string_view doing) const {
  std::string message = path_ + ": " + std::string(doing) + ": " + sqlite3_errmsg(db_);
  if ((rc & ~0xff) != 0) message += " (extended code " + std::to_string(rc) + ")";
  throw BackendError("sqlite", std::string(code_name(rc)), message);
}

// ---------------------------------------------------------------- Statement

Statement::Statement(Connection& conn, std::string_view sql) : conn_(conn), stmt_(conn.prepare(sql)) {}

Statement::~Statement() { sqlite3_finalize(stmt_); }

// ---------------------------------------------------------------- Query

Query::~Query() {
  sqlite3_reset(s_.stmt_);
  sqlite3_clear_bindings(s_.stmt_);
}

void Query::check_bind(int rc) {
  if (rc != SQLITE_OK) s_.conn_.fail(rc, std::string("binding ") + sqlite3_sql(s_.stmt_));
}

Query& Query::bind(int i, std::string_view text) {
  check_bind(sqlite3_bind_text64(s_.stmt_, i, text.data(), text.size(), SQLITE_STATIC, SQLITE_UTF8));
  return *this;
}

Query& Query::bind_nullable(int i, const std::optional<std::string>& text) {
  if (text) return bind(i, std::string_view(*text));
  check_bind(sqlite3_bind_null(s_.stmt_, i));
  return *this;
}

Query& Query::bind(int i, std::int64_t n) {
  check_bind(sqlite3_bind_int64(s_.stmt_, i, n));
  return *this;
}

Query& Query::bind(int i, double d) {
  check_bind(sqlite3_bind_double(s_.stmt_, i, d));
  return *this;
}

bool Query::next() {
  const int rc = sqlite3_step(s_.stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  s_.conn_.fail(rc, sqlite3_sql(s_.stmt_));
}

void Query::run() {
  while (next()) {
  }
}

bool Query::is_null(int col) const noexcept { return sqlite3_column_type(s_.stmt_, col) == SQLITE_NULL; }

std::string_view Query::text(int col) const noexcept {
  const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(s_.stmt_, col));
  if (!p) return {};
  return {p, static_cast<std::size_t>(sqlite3_column_bytes(s_.stmt_, col))};
}

std::int64_t Query::integer(int col) const noexcept { return sqlite3_column_int64(s_.stmt_, col); }

double Query::real(int col) const noexcept { return sqlite3_column_double(s_.stmt_, col); }

}  // namespace harel::store::sqlite
