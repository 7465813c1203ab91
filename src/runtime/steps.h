// The pure parts of running an execution, used by AsyncRunner: what to commit
// for an event, for a new execution, for a spawned child, and the event a due
// timer becomes.
#pragma once

#include <optional>
#include <string>

#include "harel/model/outbox.h"
#include "harel/runtime/definitions.h"

namespace harel::runtime::steps {

// What commit() must write for `event` on `loaded`: the engine's step with
// the dedupe mark set, the base version restored, and the trace step dropped
// unless tracing is on.
Step for_event(const Definitions& definitions, const Execution& loaded, const Event& event, EpochSeconds now,
               bool trace);

// The first commit of a new root execution (`id` unset: a fresh unique id).
Step for_new(const Definitions& definitions, std::string_view definition_id, boost::json::object context,
             std::optional<std::string> id, EpochSeconds now, bool trace);

// The first commit of the child a spawn intent names, running one region of
// its parent's definition.
Step for_child(const Definitions& definitions, const SpawnEntry& spawn, const Execution& parent, EpochSeconds now,
               bool trace);

// The Timeout event a due timer becomes. Its id is derived from the timer, so
// a timer fired twice (a sweep that died before delete_timer) is deduplicated.
Event timeout_event(const DueTimer& timer);

EpochSeconds system_now();

}  // namespace harel::runtime::steps
