// SqliteStore: the embedded, durable ExecutionStore — one SQLite file, no server.
//
// Every commit is one SQLite transaction (BEGIN IMMEDIATE, so writers queue
// for the file's write lock up front instead of failing a read→write upgrade)
// and the CAS is `UPDATE executions … WHERE id = ? AND version = ?` (an INSERT
// that must not find the id for version 0). The file is in WAL mode, so
// readers never block the writer and the writer never blocks readers.
//
// Several processes (or several SqliteStore objects) may share one file: the
// write lock serializes their transactions, the busy timeout makes a writer
// wait for it, and a transaction still answered SQLITE_BUSY / SQLITE_LOCKED
// is retried a few times as a whole before BackendError is raised.
//
// Tables (schema version 1, stamped in PRAGMA user_version): executions (the
// Execution's JSON in `data`, plus version, definition_id, status and
// parent_id broken out for the CAS and the listing filters), outbox, spawns,
// timers, processed, trace. Outbox and spawn seqs are AUTOINCREMENT rowids:
// monotonic and never reused, even after acks empty the table.
//
// Listing is in id order; next_cursor is set exactly when another matching
// execution exists after the page (at the time of the query).
//
// Errors besides the contract's: opening raises BackendError with code
// "SCHEMA_TOO_NEW" for a file written by a newer harel (its schema version is
// higher than this build knows), and BackendError("sqlite", "SQLITE_…") for
// any SQLite failure, with the file path in the message.
#pragma once

#include <chrono>
#include <exception>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "harel/store/execution_store.h"

namespace harel {

struct SqliteOptions {
  std::int64_t trace_max = kDefaultTraceMax;  // the trace ring size, see ExecutionStore::trace_max()
  // How long one statement waits for another connection's lock before SQLite
  // answers SQLITE_BUSY (then the whole transaction is retried a few times).
  std::chrono::milliseconds busy_timeout{5000};
  // true: PRAGMA synchronous=FULL — a commit that returned survives power
  // loss (one fsync of the WAL per commit). false: synchronous=NORMAL — still
  // never corrupt, but the last commits before a power loss (not a process
  // crash) may be lost. FULL is the default because a lost commit is a lost
  // outbox event or a re-run step that the caller already acknowledged.
  bool sync_full = true;
};

class SqliteStore final : public ExecutionStore {
 public:
  // Opens (creating if needed) the database file at `path` and brings its
  // schema to the current version. Raises BackendError if the file cannot be
  // opened, is not an SQLite database, or has a newer schema.
  explicit SqliteStore(std::string path, SqliteOptions options = {});
  ~SqliteStore() override;

  // The database file this store was opened on.
  const std::string& path() const noexcept;

  std::optional<Execution> load(std::string_view execution_id) override;
  LoadForEvent load_for_event(std::string_view execution_id, std::string_view event_id) override;
  ExecutionPage list_executions(const ListQuery& query) override;
  CommitReceipt commit(Execution& exe, const Effects& effects) override;
  bool is_processed(std::string_view execution_id, std::string_view event_id) override;
  std::vector<OutboxEntry> pending_outbox() override;
  void ack_outbox(std::int64_t seq) override;
  std::vector<SpawnEntry> pending_spawns() override;
  void ack_spawn(std::int64_t seq) override;
  std::vector<DueTimer> due_timers(EpochSeconds now) override;
  bool delete_timer(std::string_view execution_id, std::string_view path, EpochSeconds fire_at) override;
  std::vector<TraceStep> read_trace(std::string_view execution_id) override;
  void append_trace(std::string_view execution_id, const TraceStep& entry) override;
  // Closes the connection; further calls raise BackendError (SQLITE_MISUSE).
  void close() override;

  // Group commit: runs `writes` — each a call of this store's commit,
  // ack_outbox, ack_spawn or delete_timer, made on the calling thread — in ONE
  // SQLite transaction, so the group costs one fsync instead of one per write
  // and is exactly as durable once this returns. Each write keeps its own
  // all-or-nothing (a savepoint): one that raises is rolled back alone and its
  // exception is returned in its slot; the others commit. If the transaction
  // itself fails, every slot holds that error and nothing of the group was
  // written (a commit's exe.version is then already bumped: the caller
  // restores it). Other threads' calls wait for the group.
  std::vector<std::exception_ptr> write_group(std::span<const std::function<void()>> writes);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace harel
