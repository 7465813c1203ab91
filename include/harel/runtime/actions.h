// Actions: the C++ callables a statechart definition names in `on_enter`,
// `on_exit` and transition `actions`.
//
// An action reads and updates the execution's context and may emit events to
// other executions. It must be deterministic (no clocks, randomness or IO):
// a step that lost a version conflict is recomputed, and the retry must
// produce the same context and the same effects. An action that throws fails
// the execution (status FAILED, `error` set) instead of the step.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <boost/json/object.hpp>

#include "harel/model/effects.h"
#include "harel/model/event.h"
#include "harel/model/execution.h"

namespace harel::runtime {

// What an action sees while it runs.
struct ActionContext {
  boost::json::object& context;      // the execution's context, mutable
  const Event& event;                // the event being handled (a synthetic "Start" event on start)
  const boost::json::object& args;   // the action's args from the definition ({} if none)
  const Execution& execution;        // read-only view (id, parent_id, ...)
  std::vector<Emit>& emits;          // the step's emits so far; emit() appends
  std::string_view emit_id_prefix;   // "<execution id>:<version + 1>:"

  // Queues an event for `target_id` (nullopt: untargeted) in the step's
  // outbox. Its id is the prefix plus its index among the step's emits, so a
  // retried step emits identical ids and the receiver's dedupe holds.
  void emit(std::optional<std::string> target_id, std::string kind, boost::json::object data);
};

using Action = std::function<void(ActionContext&)>;

// Checks an action's `args` while a definition is validated, so a typo fails
// before anything runs. Throws InvalidArgument describing the problem.
using ArgsCheck = std::function<void(const boost::json::object& args)>;

// Actions by name. Copyable; share one immutable registry between engines.
class ActionRegistry {
 public:
  // Registers `action` under `name`, replacing any action of that name
  // (including a builtin). `check`, when given, validates args at load time.
  void add(std::string name, Action action, ArgsCheck check = {});

  // The action registered under `name`, or nullptr.
  const Action* find(std::string_view name) const;

  // Validates `args` for the action `name` (which must be registered).
  // Throws InvalidArgument from the action's ArgsCheck.
  void check_args(std::string_view name, const boost::json::object& args) const;

 private:
  struct Entry {
    Action action;
    ArgsCheck check;
  };
  std::map<std::string, Entry, std::less<>> entries_;
};

// A registry holding the builtin actions:
//   "assign"            args (an object) merged into the context, top-level keys overwritten.
//   "increment"         args {"field": "n", "by": 1}: context[field] += by ("by" defaults to 1;
//                       a missing field counts from 0; integers stay integers).
//   "merge_event_data"  the event's data merged into the context.
//   "emit"              args {"target": "<execution id>" | "$parent" | null, "kind": "...",
//                       "data": {...} optional, "copy": ["field", ...] optional}: emits an
//                       event; each copied context field is added to data (null if absent).
//                       "$parent" is the execution's parent_id (an error for a root execution).
ActionRegistry builtin_actions();

}  // namespace harel::runtime
