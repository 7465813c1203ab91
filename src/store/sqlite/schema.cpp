#include "store/sqlite/schema.h"

#include <array>
#include <string>

#include "harel/errors.h"

namespace harel::store::sqlite {
namespace {

// kMigrations[v] takes a file from schema version v to v + 1. Version 0 is
// an empty file (or one this store never touched: plain CREATE TABLE then
// fails loudly instead of adopting someone else's tables).
constexpr std::array<const char*, kSchemaVersion> kMigrations = {
    // 0 → 1
    R"sql(
CREATE TABLE executions (
  id            TEXT PRIMARY KEY NOT NULL,
  version       INTEGER NOT NULL,
  definition_id TEXT NOT NULL,
  status        TEXT NOT NULL,
  parent_id     TEXT,
  data          TEXT NOT NULL  -- the Execution as JSON, carrying `version`
);
-- The listing filters, each ordered by id like the listing itself.
CREATE INDEX executions_by_definition ON executions (definition_id, id);
CREATE INDEX executions_by_status ON executions (status, id);

-- AUTOINCREMENT: seqs never go back, even after acks empty the table.
CREATE TABLE outbox (
  seq       INTEGER PRIMARY KEY AUTOINCREMENT,
  target_id TEXT,
  event     TEXT NOT NULL
);
CREATE TABLE spawns (
  seq       INTEGER PRIMARY KEY AUTOINCREMENT,
  parent_id TEXT NOT NULL,
  child_id  TEXT NOT NULL,
  root_path TEXT NOT NULL,
  context   TEXT NOT NULL
);

CREATE TABLE timers (
  execution_id TEXT NOT NULL,
  path         TEXT NOT NULL,
  fire_at      REAL NOT NULL,
  PRIMARY KEY (execution_id, path)
) WITHOUT ROWID;
CREATE INDEX timers_by_fire_at ON timers (fire_at);

CREATE TABLE processed (
  execution_id TEXT NOT NULL,
  event_id     TEXT NOT NULL,
  PRIMARY KEY (execution_id, event_id)
) WITHOUT ROWID;

CREATE TABLE trace (
  execution_id TEXT NOT NULL,
  idx          INTEGER NOT NULL,
  entry        TEXT NOT NULL,
  PRIMARY KEY (execution_id, idx)
) WITHOUT ROWID;
)sql",
};

std::int64_t user_version(Connection& conn) {
  Statement stmt(conn, "PRAGMA user_version");
  Query q(stmt);
  q.next();
  return q.integer(0);
}

void check_not_newer(const Connection& conn, std::int64_t version) {
  if (version > kSchemaVersion)
    throw BackendError("sqlite", "SCHEMA_TOO_NEW",
                       conn.path() + " has schema version " + std::to_string(version) +
                           "; this build of harel knows versions up to " + std::to_string(kSchemaVersion));
}

}  // namespace

void migrate(Connection& conn) {
  // The common case, an up-to-date file, costs one read and no write lock.
  const std::int64_t seen = user_version(conn);
  check_not_newer(conn, seen);
  if (seen == kSchemaVersion) return;
  // Re-read under the write lock: another process may have migrated since.
  write_transaction(conn, [&] {
    const std::int64_t version = user_version(conn);
    check_not_newer(conn, version);
    for (std::int64_t v = version; v < kSchemaVersion; ++v) conn.exec(kMigrations[static_cast<std::size_t>(v)]);
    conn.exec(("PRAGMA user_version = " + std::to_string(kSchemaVersion)).c_str());
  });
}

}  // namespace harel::store::sqlite
