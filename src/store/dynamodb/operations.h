// The DynamoDB store's logic, written once as CallSequences (see
// call_sequence.h) and driven by DynamoDBStore (blocking) and
// AsyncDynamoDBStore (Asio). Everything the seed specifies lives here: the
// seven tables, the seq allocator, the CAS-conditioned TransactWriteItems,
// conflict translation, the trace ring, the Scan-based listing and relay
// reads, and the limits checked before sending.
//
// Lifetimes: a sequence keeps references to its arguments; the driver keeps
// them alive until the sequence has finished.
#pragma once

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
#include "harel/store/execution_store.h"
#include "store/dynamodb/call_sequence.h"

namespace harel::store::dynamodb {

// DynamoDB's limits, checked before a commit is sent so that an oversized
// commit fails with a clear error and writes nothing.
inline constexpr std::size_t kMaxTransactionItems = 100;
inline constexpr std::size_t kMaxTransactionBytes = 4 * 1024 * 1024;
inline constexpr std::size_t kMaxItemBytes = 400 * 1024;

// "{prefix}_{name}" for the seven tables. The prefix is validated so that
// every name is a legal DynamoDB table name (3–255 of [A-Za-z0-9_.-]).
struct TableNames {
  explicit TableNames(std::string_view prefix);

  std::string prefix;
  std::string executions, outbox, spawns, timers, processed, counters, trace;
};

class Operations {
 public:
  // consistent_reads: load, load_for_event, is_processed and the conflict
  // read-back use strongly consistent reads, so a reload after StoreConflict
  // sees the winner's write (the seed's reads are eventually consistent;
  // DynamoDB Local and moto are always consistent).
  Operations(TableNames tables, bool consistent_reads) : tables_(std::move(tables)), consistent_(consistent_reads) {}

  const TableNames& tables() const noexcept { return tables_; }

  // Creates the seven tables (PAY_PER_REQUEST; an existing table is fine)
  // and waits until each is ACTIVE.
  CallSequence<Done> ensure_tables() const;

  CallSequence<std::optional<Execution>> load(std::string_view execution_id) const;
  CallSequence<LoadForEvent> load_for_event(std::string_view execution_id, std::string_view event_id) const;
  CallSequence<ExecutionPage> list_executions(const ListQuery& query) const;
  // Returns where the emits and spawns went; `exe` itself is not modified
  // (the committed version is exe.version + 1).
  CallSequence<CommitReceipt> commit(const Execution& exe, const Effects& effects, std::int64_t trace_max) const;
  CallSequence<bool> is_processed(std::string_view execution_id, std::string_view event_id) const;
  CallSequence<std::vector<OutboxEntry>> pending_outbox() const;
  CallSequence<Done> ack_outbox(std::int64_t seq) const;
  CallSequence<std::vector<SpawnEntry>> pending_spawns() const;
  CallSequence<Done> ack_spawn(std::int64_t seq) const;
  CallSequence<std::vector<DueTimer>> due_timers(EpochSeconds now) const;
  CallSequence<bool> delete_timer(std::string_view execution_id, std::string_view path, EpochSeconds fire_at) const;
  CallSequence<std::vector<TraceStep>> read_trace(std::string_view execution_id) const;
  CallSequence<Done> append_trace(std::string_view execution_id, const TraceStep& entry, std::int64_t trace_max) const;

 private:
  CallSequence<std::vector<boost::json::object>> scan_all(const std::string& table, boost::json::object request) const;

  TableNames tables_;
  bool consistent_;
};

}  // namespace harel::store::dynamodb
