// ExecutionStore: the one persistence seam of harel.
//
// A store keeps Executions together with their side effects — outbox events,
// orthogonal-fork spawn intents, dedupe marks, durable timers and an opt-in
// trace — and writes all of one step's effects in ONE atomic commit guarded by
// optimistic concurrency on Execution::version.
//
// Implementations: MemoryStore (reference semantics, tests), SqliteStore (the
// embedded durable default), DynamoDBStore (AWS). Every one passes the same
// contract suite (tests/store/contract_test.cpp).
//
// Thread safety: every implementation may be called from several threads at
// once. Correctness across processes (several workers on one SQLite file or
// one DynamoDB table set) comes from the CAS, not from locks.
//
// Errors: InvalidArgument for unusable input (raised before anything is
// written), StoreConflict for a lost CAS (AlreadyProcessed when the commit's
// dedupe mark was already there), InvalidCursor for a foreign cursor,
// CorruptRecord for a stored record that cannot be read back, BackendError for
// failures of the backend itself (keeping its code).
//
// What a failed commit left behind: after InvalidArgument, StoreConflict or a
// non-retryable backend error, nothing of it. After a transport failure or a
// retryable backend error that outlived the retries (the answer to a request
// that reached the server was lost), the outcome is unknown — the commit was
// applied completely or not at all, never partly. Reload to find out; the
// dedupe mark tells whether the event was handled.
#pragma once

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "harel/model/effects.h"
#include "harel/model/execution.h"
#include "harel/model/outbox.h"
#include "harel/model/summary.h"
#include "harel/model/timer.h"

namespace harel {

// How many trace steps a store keeps per execution unless told otherwise.
inline constexpr std::int64_t kDefaultTraceMax = 200;

// Filters of list_executions. Empty `statuses` means any status.
struct ListQuery {
  std::vector<Status> statuses;              // any-of
  std::optional<std::string> definition_id;  // exact match
  bool roots_only = false;                   // only executions without a parent
  std::int64_t limit = 100;                  // upper bound on examined/returned rows (> 0)
  std::optional<std::string> cursor;         // from a previous page's next_cursor
};

// load_for_event's answer: the execution (nullopt if absent) and whether the
// event was already processed by it.
struct LoadForEvent {
  std::optional<Execution> execution;
  bool already_processed = false;
};

class ExecutionStore {
 public:
  virtual ~ExecutionStore() = default;
  ExecutionStore(const ExecutionStore&) = delete;
  ExecutionStore& operator=(const ExecutionStore&) = delete;

  // Returns the stored execution, or nullopt if there is none with this id.
  virtual std::optional<Execution> load(std::string_view execution_id) = 0;

  // load() and is_processed() in one step (one round trip where the backend
  // allows): the worker's hot path when an event arrives.
  virtual LoadForEvent load_for_event(std::string_view execution_id, std::string_view event_id) = 0;

  // One page of summaries matching `query`, in a backend-defined order. A page
  // may hold fewer than `limit` items — even none — while more remain: keep
  // paging until next_cursor is nullopt. Raises InvalidCursor for a cursor
  // this store did not produce, InvalidArgument for limit <= 0.
  virtual ExecutionPage list_executions(const ListQuery& query) = 0;

  // Writes `exe` and `effects` atomically, guarded by CAS on exe.version:
  // version 0 inserts (fails if the id exists), version v>0 updates only if
  // the stored version is still v. On success exe.version is v+1 and the
  // stored JSON carries v+1. On StoreConflict (or any other error) exe.version
  // is unchanged and nothing of the commit — execution, outbox, spawns, dedupe
  // mark, timers, trace step — is stored.
  //
  // Effects: emits go to the outbox with fresh, increasing seqs; spawns to the
  // spawn table; processed_event_id becomes a dedupe mark; a Schedule timer
  // upserts (execution, path), a Cancel deletes it; a trace step is appended
  // to the execution's trace ring (see trace_max()). Returns where the emits
  // and spawns went (consecutive seqs, in order).
  virtual CommitReceipt commit(Execution& exe, const Effects& effects) = 0;

  // commit(exe, {}): the version-checked write with no side effects.
  void save(Execution& exe) { commit(exe, Effects{}); }

  // Whether a commit for `execution_id` recorded `event_id` as processed.
  virtual bool is_processed(std::string_view execution_id, std::string_view event_id) = 0;

  // Every undelivered outbox entry, oldest (lowest seq) first.
  virtual std::vector<OutboxEntry> pending_outbox() = 0;
  // Removes a delivered entry. Acking an unknown seq is a no-op.
  virtual void ack_outbox(std::int64_t seq) = 0;

  // Every spawn intent not yet acted on, oldest first.
  virtual std::vector<SpawnEntry> pending_spawns() = 0;
  // Removes a handled spawn intent. Acking an unknown seq is a no-op.
  virtual void ack_spawn(std::int64_t seq) = 0;

  // Timers with fire_at <= now, earliest first.
  virtual std::vector<DueTimer> due_timers(EpochSeconds now) = 0;
  // Deletes the timer only if it is still armed for exactly `fire_at`, so a
  // sweep that raced a re-schedule leaves the new timer alone. Returns whether
  // a timer was deleted.
  virtual bool delete_timer(std::string_view execution_id, std::string_view path, EpochSeconds fire_at) = 0;

  // The execution's trace ring, oldest first; each step carries its "index".
  virtual std::vector<TraceStep> read_trace(std::string_view execution_id) = 0;
  // Appends a step outside a commit (not atomic with any execution write).
  // Uses entry["index"] as the index when present, else max index + 1.
  virtual void append_trace(std::string_view execution_id, const TraceStep& entry) = 0;

  // The ring size: each traced write at index K also drops index K - trace_max.
  // 0 keeps every step. Set it once at startup: after lowering it, steps
  // older than the new window may linger (a backend may drop only one step per
  // write, as DynamoDB does), but no step inside the window is ever deleted.
  std::int64_t trace_max() const noexcept { return trace_max_.load(std::memory_order_relaxed); }
  void set_trace_max(std::int64_t n);

  // Releases connections / file handles. Further calls are undefined.
  virtual void close() = 0;

 protected:
  ExecutionStore() = default;

 private:
  std::atomic<std::int64_t> trace_max_{kDefaultTraceMax};
};

}  // namespace harel
