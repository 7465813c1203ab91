// MemoryStore: the reference semantics of ExecutionStore, in process memory.
//
// Thread-safe (one mutex); nothing survives the process. Executions are kept
// as their JSON text, exactly as a durable store keeps them, so a load
// returns an independent copy and unknown fields survive as they would on
// disk. Lists in id order. Use it in tests and to try workflows out.
#pragma once

#include <memory>

#include "harel/store/execution_store.h"

namespace harel {

class MemoryStore final : public ExecutionStore {
 public:
  explicit MemoryStore(std::int64_t trace_max = kDefaultTraceMax);
  ~MemoryStore() override;

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
  void close() override;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace harel
