#include "harel/runtime/runner.h"

#include "harel/errors.h"
#include "runtime/steps.h"
#include "util/random_id.h"

namespace harel::runtime {

// ------------------------------------------------------------------ Definitions

Definitions::Definitions(std::shared_ptr<const ActionRegistry> actions) : actions_(std::move(actions)) {}

const std::string& Definitions::add(std::shared_ptr<const Definition> definition) {
  std::string id = definition->id();
  auto [it, inserted] = engines_.insert_or_assign(std::move(id), Engine(std::move(definition), actions_));
  return it->first;
}

const std::string& Definitions::add_json(std::string_view json_text) {
  return add(parse_definition(json_text, *actions_));
}

const Engine& Definitions::engine(std::string_view definition_id) const {
  auto it = engines_.find(definition_id);
  if (it == engines_.end()) throw InvalidArgument("unknown definition '" + std::string(definition_id) + "'");
  return it->second;
}

// ------------------------------------------------------------------ DurableRunner

DurableRunner::DurableRunner(ExecutionStore& store, std::shared_ptr<const Definitions> definitions,
                             RunnerOptions options)
    : store_(store), definitions_(std::move(definitions)), options_(std::move(options)) {
  if (!options_.clock) options_.clock = steps::system_now;
  if (options_.conflict_retries < 0) throw InvalidArgument("conflict_retries must not be negative");
}

EpochSeconds DurableRunner::now() const { return options_.clock(); }

bool DurableRunner::try_commit(Step& step) {
  try {
    store_.commit(step.execution, step.effects);
    return true;
  } catch (const StoreConflict&) {
    return false;
  }
}

Execution DurableRunner::create(std::string_view definition_id, boost::json::object context,
                                std::optional<std::string> id) {
  Step step = steps::for_new(*definitions_, definition_id, std::move(context), std::move(id), now(), options_.trace);
  if (!try_commit(step)) throw InvalidArgument("execution '" + step.execution.id + "' already exists");
  return step.execution;
}

ProcessOutcome DurableRunner::process(std::string_view id, const Event& event) {
  for (int attempt = 0;; ++attempt) {
    LoadForEvent loaded = store_.load_for_event(id, event.id);
    if (!loaded.execution) return ProcessOutcome::NotFound;
    if (loaded.already_processed) {
      ++stats_.duplicates;
      return ProcessOutcome::Duplicate;
    }
    Step step = steps::for_event(*definitions_, *loaded.execution, event, now(), options_.trace);
    if (try_commit(step)) {
      ++stats_.events;
      return step.handled ? ProcessOutcome::Handled : ProcessOutcome::Unhandled;
    }
    ++stats_.conflicts_retried;
    if (attempt == options_.conflict_retries) {
      const auto stored = store_.load(id);
      throw StoreConflict(std::string(id), loaded.execution->version,
                          stored ? std::optional(stored->version) : std::nullopt);
    }
  }
}

void DurableRunner::create_child(const SpawnEntry& spawn) {
  if (store_.load(spawn.child_id)) return;  // created by an earlier (interrupted) relay
  const auto parent = store_.load(spawn.parent_id);
  if (!parent) throw CorruptRecord("spawns", std::to_string(spawn.seq), "parent '" + spawn.parent_id + "' not found");
  Step step = steps::for_child(*definitions_, spawn, *parent, now(), options_.trace);
  if (try_commit(step)) ++stats_.spawns_created;  // else another relay was first
}

std::int64_t DurableRunner::relay_once() {
  std::int64_t handled = 0;
  for (const OutboxEntry& entry : store_.pending_outbox()) {
    // Untargeted events have no receiver in this runtime: acknowledged as undeliverable.
    const ProcessOutcome outcome =
        entry.target_id ? process(*entry.target_id, entry.event) : ProcessOutcome::NotFound;
    if (outcome == ProcessOutcome::NotFound) ++stats_.undeliverable;
    store_.ack_outbox(entry.seq);
    ++stats_.outbox_delivered;
    ++handled;
  }
  for (const SpawnEntry& spawn : store_.pending_spawns()) {
    create_child(spawn);
    store_.ack_spawn(spawn.seq);
    ++handled;
  }
  return handled;
}

std::int64_t DurableRunner::sweep_once() {
  std::int64_t fired = 0;
  for (const DueTimer& timer : store_.due_timers(now())) {
    const ProcessOutcome outcome = process(timer.execution_id, steps::timeout_event(timer));
    // Guarded on fire_at: a timer re-armed meanwhile (a new fire_at) survives.
    store_.delete_timer(timer.execution_id, timer.path, timer.fire_at);
    if (outcome == ProcessOutcome::Handled || outcome == ProcessOutcome::Unhandled) {
      ++stats_.timers_fired;
      ++fired;
    }
  }
  return fired;
}

Event make_event(std::string kind, boost::json::object data) {
  return Event{"ev-" + util::random_id(), std::move(kind), std::nullopt, std::nullopt, std::move(data), {}};
}

}  // namespace harel::runtime
