// DurableRunner: drives executions through any ExecutionStore, one commit per
// event, so a workflow survives crashes, restarts and concurrent workers.
//
// The guarantees come from the store, not from locks:
// * process(): load_for_event (execution + dedupe mark in one step) → the
//   pure engine → ONE commit carrying the new execution, its outbox emits,
//   spawn intents, timer ops, the dedupe mark and (opt-in) a trace step. A
//   StoreConflict (another worker advanced the execution) reloads and
//   recomputes, up to a bounded budget; an already-processed event is a
//   no-op. So an event is applied exactly once however often it is delivered.
// * relay_once(): pending_outbox → process() on each target → ack; then
//   pending_spawns → create the child unless it exists → ack. Delivery is at
//   least once; the receiver's dedupe mark makes its effect exactly once. A
//   crash between deliver and ack just delivers again.
// * sweep_once(): due_timers → a "Timeout" event {"path"} with a
//   deterministic id (so a re-fired timer is deduplicated) → delete_timer
//   guarded on fire_at (a timer re-armed meanwhile survives).
// Actions run inside the engine and may run more than once for one event
// (a conflict recomputes the step): keep them free of outside side effects,
// or make those idempotent — emit events instead.
//
// Thread safety: a runner may be shared by threads, and several runners (in
// several processes) may work on one store concurrently.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "harel/runtime/engine.h"
#include "harel/store/execution_store.h"

namespace harel::runtime {

// The definitions a runner knows, by id, each with its engine.
class Definitions {
 public:
  explicit Definitions(std::shared_ptr<const ActionRegistry> actions);

  // Adds (or replaces) a definition; returns its id.
  const std::string& add(std::shared_ptr<const Definition> definition);
  // Parses JSON text with this set's actions and adds it.
  const std::string& add_json(std::string_view json_text);

  // The engine for `definition_id`; InvalidArgument naming it if unknown.
  const Engine& engine(std::string_view definition_id) const;
  const ActionRegistry& actions() const { return *actions_; }

 private:
  std::shared_ptr<const ActionRegistry> actions_;
  std::map<std::string, Engine, std::less<>> engines_;
};

struct RunnerOptions {
  bool trace = false;               // write one trace step per commit
  int conflict_retries = 32;        // reloads after StoreConflict before giving up
  std::function<EpochSeconds()> clock;  // default: the system clock
};

// Counters a runner keeps (monotonic, readable while it runs).
struct RunnerStats {
  std::atomic<std::int64_t> events{0};             // events committed (handled or not)
  std::atomic<std::int64_t> duplicates{0};         // events found already processed
  std::atomic<std::int64_t> conflicts_retried{0};  // StoreConflicts recomputed
  std::atomic<std::int64_t> outbox_delivered{0};   // outbox entries delivered and acked
  std::atomic<std::int64_t> undeliverable{0};      // outbox entries whose target does not exist (acked)
  std::atomic<std::int64_t> spawns_created{0};     // children created from spawn intents
  std::atomic<std::int64_t> timers_fired{0};       // due timers whose Timeout event was committed
};

enum class ProcessOutcome {
  Handled,    // a transition was taken and committed
  Unhandled,  // committed as processed, nothing enabled (e.g. a stale timer)
  Duplicate,  // the event had already been processed: nothing written
  NotFound,   // no execution with that id: nothing written
};

class DurableRunner {
 public:
  DurableRunner(ExecutionStore& store, std::shared_ptr<const Definitions> definitions, RunnerOptions options = {});

  // Creates and starts a root execution of `definition_id`. With `id` unset,
  // a fresh unique id is chosen. An existing id raises InvalidArgument.
  Execution create(std::string_view definition_id, boost::json::object context = {},
                   std::optional<std::string> id = std::nullopt);

  // Applies `event` to execution `id`, exactly once (see the header comment).
  // Raises StoreConflict when the retry budget is exhausted.
  ProcessOutcome process(std::string_view id, const Event& event);

  // One relay pass over everything pending now; returns the entries handled.
  std::int64_t relay_once();
  // One timer sweep over everything due now; returns the timers fired (a
  // timer whose Timeout was already processed is deleted, not counted).
  std::int64_t sweep_once();

  const RunnerStats& stats() const { return stats_; }
  EpochSeconds now() const;

 private:
  // Commits a prepared step: true on success (its version bumped), false on
  // StoreConflict.
  bool try_commit(Step& step);
  // Creates a child from a spawn intent unless it already exists.
  void create_child(const SpawnEntry& spawn);

  ExecutionStore& store_;
  std::shared_ptr<const Definitions> definitions_;
  RunnerOptions options_;
  RunnerStats stats_;
};

// A fresh event of `kind` with a unique id (for events from outside).
Event make_event(std::string kind, boost::json::object data = {});

}  // namespace harel::runtime
