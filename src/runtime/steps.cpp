#include "runtime/steps.h"

#include <chrono>

#include "harel/json/write.h"
#include "util/random_id.h"

namespace harel::runtime::steps {
namespace {

Step finish(Step step, std::int64_t base_version, std::optional<std::string> processed_event_id, bool trace) {
  step.execution.version = base_version;
  step.effects.processed_event_id = std::move(processed_event_id);
  if (!trace) step.effects.trace.reset();
  return step;
}

}  // namespace

EpochSeconds system_now() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

Step for_event(const Definitions& definitions, const Execution& loaded, const Event& event, EpochSeconds now,
               bool trace) {
  return finish(definitions.engine(loaded.definition_id).handle(loaded, event, now), loaded.version, event.id, trace);
}

Step for_new(const Definitions& definitions, std::string_view definition_id, boost::json::object context,
             std::optional<std::string> id, EpochSeconds now, bool trace) {
  const Engine& engine = definitions.engine(definition_id);
  Execution exe;
  exe.id = id ? std::move(*id) : std::string(definition_id) + "-" + util::random_id();
  exe.definition_id = std::string(definition_id);
  exe.context = std::move(context);
  return finish(engine.start(exe, now), 0, std::nullopt, trace);
}

Step for_child(const Definitions& definitions, const SpawnEntry& spawn, const Execution& parent, EpochSeconds now,
               bool trace) {
  Execution child;
  child.id = spawn.child_id;
  child.definition_id = parent.definition_id;
  child.root_path = spawn.root_path;
  child.parent_id = spawn.parent_id;
  child.child_id = spawn.child_id;
  child.priority = parent.priority;
  child.context = spawn.context;
  return finish(definitions.engine(child.definition_id).start(child, now), 0, std::nullopt, trace);
}

Event timeout_event(const DueTimer& timer) {
  std::string fire_at;
  json::write_double(fire_at, timer.fire_at);
  return Event{timer.execution_id + ":timeout:" + timer.path + "@" + fire_at, "Timeout", std::nullopt, std::nullopt,
               boost::json::object{{"path", timer.path}}, {}};
}

}  // namespace harel::runtime::steps
