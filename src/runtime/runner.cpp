#include "harel/runtime/runner.h"

#include <chrono>
#include <random>

#include "harel/errors.h"
#include "harel/json/write.h"

namespace harel::runtime {
namespace {

EpochSeconds system_now() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

// 128 random bits as hex: ids for executions and external events.
std::string random_id() {
  thread_local std::mt19937_64 rng{std::random_device{}()};
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (int word = 0; word < 2; ++word) {
    std::uint64_t bits = rng();
    for (int i = 0; i < 16; ++i, bits >>= 4) out += kHex[bits & 0xF];
  }
  return out;
}

// The Timeout event a due timer becomes. Its id is derived from the timer, so
// a timer fired twice (a sweep that died before delete_timer) is deduplicated.
Event timeout_event(const DueTimer& timer) {
  std::string fire_at;
  json::write_double(fire_at, timer.fire_at);
  return Event{timer.execution_id + ":timeout:" + timer.path + "@" + fire_at, "Timeout", std::nullopt, std::nullopt,
               boost::json::object{{"path", timer.path}}, {}};
}

}  // namespace

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
  if (!options_.clock) options_.clock = system_now;
  if (options_.conflict_retries < 0) throw InvalidArgument("conflict_retries must not be negative");
}

EpochSeconds DurableRunner::now() const { return options_.clock(); }

bool DurableRunner::try_commit(const Execution& base, Step step, std::optional<std::string> processed_event_id) {
  step.execution.version = base.version;
  step.effects.processed_event_id = std::move(processed_event_id);
  if (!options_.trace) step.effects.trace.reset();
  try {
    store_.commit(step.execution, step.effects);
    return true;
  } catch (const StoreConflict&) {
    return false;
  }
}

Execution DurableRunner::create(std::string_view definition_id, boost::json::object context,
                                std::optional<std::string> id) {
  const Engine& engine = definitions_->engine(definition_id);
  Execution exe;
  exe.id = id ? std::move(*id) : std::string(definition_id) + "-" + random_id();
  exe.definition_id = std::string(definition_id);
  exe.context = std::move(context);
  Step step = engine.start(exe, now());
  if (!try_commit(exe, step, std::nullopt)) throw InvalidArgument("execution '" + exe.id + "' already exists");
  step.execution.version = 1;
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
    const Execution& exe = *loaded.execution;
    Step step = definitions_->engine(exe.definition_id).handle(exe, event, now());
    const bool handled = step.handled;
    if (try_commit(exe, std::move(step), event.id)) {
      ++stats_.events;
      return handled ? ProcessOutcome::Handled : ProcessOutcome::Unhandled;
    }
    ++stats_.conflicts_retried;
    if (attempt == options_.conflict_retries) {
      const auto stored = store_.load(id);
      throw StoreConflict(std::string(id), exe.version, stored ? std::optional(stored->version) : std::nullopt);
    }
  }
}

void DurableRunner::create_child(const SpawnEntry& spawn) {
  if (store_.load(spawn.child_id)) return;  // created by an earlier (interrupted) relay
  const auto parent = store_.load(spawn.parent_id);
  if (!parent) throw CorruptRecord("spawns", std::to_string(spawn.seq), "parent '" + spawn.parent_id + "' not found");
  // A child runs one region of its parent's definition.
  Execution child;
  child.id = spawn.child_id;
  child.definition_id = parent->definition_id;
  child.root_path = spawn.root_path;
  child.parent_id = spawn.parent_id;
  child.child_id = spawn.child_id;
  child.priority = parent->priority;
  child.context = spawn.context;
  Step step = definitions_->engine(child.definition_id).start(child, now());
  if (try_commit(child, std::move(step), std::nullopt)) ++stats_.spawns_created;  // else another relay was first
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
    const ProcessOutcome outcome = process(timer.execution_id, timeout_event(timer));
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
  return Event{"ev-" + random_id(), std::move(kind), std::nullopt, std::nullopt, std::move(data), {}};
}

}  // namespace harel::runtime
