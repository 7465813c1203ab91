// A statechart definition: the immutable, validated model the engine runs.
//
// JSON format (examples/README.md walks through examples/order.json):
//
//   {"id": "order", "initial": "Cart", "states": {"<name>": <state>, ...}}
//
// A state is an object; its shape picks its kind:
//   atomic     no "states"/"regions"/"final"
//   compound   "initial": "<child name>", "states": {...}
//   final      "final": "<outcome>"   ("success", "failed", "cancelled" or any string);
//              only top-level or directly inside a region; no transitions out
//   parallel   "regions": {"<region>": {"initial": "...", "states": {...}}, ...},
//              "on_done": "<target>", optional "on_failed": "<target>"
// Any state (final ones: on_enter only) may also have
//   "on":       {"<EventKind>": <transitions>}   taken when that event arrives
//   "always":   <transitions>                    automatic, checked right after every entry
//   "on_enter": [<action>, ...], "on_exit": [<action>, ...]
//   "timeout":  {"after": <seconds>, "target": "<target>"}
//   "description": "<free text>"                 ignored
// <transitions> is "<target>", or {"target": "...", "guard": {...}, "actions": [...]},
// or a list of those (the first enabled one wins). A guard is equality on
// top-level fields: of the event's data for "on", of the context for "always"
// (a missing field equals null; 1 equals 1.0).
// <action> is "<name>" or {"action": "<name>", "args": {...}}.
//
// State names are unique in a definition, contain no '.', and are what
// targets name. A state's path is its dotted ancestry ("Fulfil.Shipping"); a
// region's path is its parallel state's path plus the region name
// ("Fulfil.Shipping.Pack"). Regions run as child executions, so a transition
// never crosses a region boundary. "Timeout" and "Finished" are the engine's
// own event kinds and cannot appear in "on".
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include <boost/json/object.hpp>

#include "harel/model/timer.h"
#include "harel/runtime/actions.h"

namespace harel::runtime {

inline constexpr std::size_t kNoState = static_cast<std::size_t>(-1);

struct ActionCall {
  std::string name;
  boost::json::object args;

  friend bool operator==(const ActionCall&, const ActionCall&) = default;
};

struct Transition {
  std::string target;              // a state name
  boost::json::object guard = {};  // field → required value; {} is always enabled
  std::vector<ActionCall> actions = {};
  std::size_t to = kNoState;       // index of the target in Definition::states(), set by validation

  friend bool operator==(const Transition&, const Transition&) = default;
};

struct StateTimeout {
  EpochSeconds after = 0;  // > 0
  Transition transition;   // no guard, no actions

  friend bool operator==(const StateTimeout&, const StateTimeout&) = default;
};

enum class StateKind { Atomic, Compound, Parallel, Region, Final };

struct State {
  StateKind kind = StateKind::Atomic;
  std::string name;                   // "" for the root
  std::string path;                   // dotted ancestry; "" for the root
  std::size_t parent = kNoState;      // kNoState for the root
  // The region whose child execution runs this state (a region: itself), or
  // 0 for the root execution. Transitions stay within one scope.
  std::size_t scope = 0;
  std::vector<std::size_t> children;  // child states, or a parallel state's regions, as declared
  std::size_t initial = kNoState;     // compound, region and root
  std::string outcome;                // final states
  std::vector<std::pair<std::string, std::vector<Transition>>> on;  // as declared
  std::vector<Transition> always;
  std::vector<ActionCall> on_enter;
  std::vector<ActionCall> on_exit;
  std::optional<StateTimeout> timeout;
  std::optional<Transition> on_done;    // parallel states
  std::optional<Transition> on_failed;  // parallel states

  // The "on" transitions for `event_kind`, or nullptr.
  const std::vector<Transition>* transitions_on(std::string_view event_kind) const;

  friend bool operator==(const State&, const State&) = default;
};

class Definition {
 public:
  // Use parse_definition / load_definition_file / DefinitionBuilder::build;
  // this constructor is theirs (it takes already validated parts).
  Definition(std::string id, std::vector<State> states, boost::json::object json);

  const std::string& id() const noexcept { return id_; }

  // All states; [0] is the root (the top-level "initial"/"states"), regions included.
  const std::vector<State>& states() const noexcept { return states_; }
  const State& state(std::size_t index) const { return states_.at(index); }

  // Index of the state or region at `path` ("" is the root), or kNoState.
  std::size_t find_path(std::string_view path) const;
  // Index of the state named `name` (regions are not named targets), or kNoState.
  std::size_t find_name(std::string_view name) const;

  // The definition as JSON (the document it was parsed from, or the builder's).
  const boost::json::object& json() const noexcept { return json_; }

 private:
  std::string id_;
  std::vector<State> states_;
  boost::json::object json_;
  std::unordered_map<std::string, std::size_t> by_path_;
  std::unordered_map<std::string, std::size_t> by_name_;
};

// Builds and validates a definition from its JSON document. Every action it
// names must be in `actions` (and pass its args check). Throws
// InvalidArgument naming the definition id, the state and the problem:
// malformed JSON or shapes, duplicate names, unknown targets or actions, a
// compound state or region without a valid initial, a parallel state without
// regions or on_done, a bad timeout, a transition across a region boundary,
// a region without a final state, an unreachable state.
std::shared_ptr<const Definition> definition_from_json(const boost::json::object& doc, const ActionRegistry& actions);

// parse_definition on JSON text; definition_from_json's errors, and
// InvalidArgument for text that is not a JSON object.
std::shared_ptr<const Definition> parse_definition(std::string_view json_text, const ActionRegistry& actions);

// parse_definition on a file's contents; errors are prefixed with the path.
std::shared_ptr<const Definition> load_definition_file(const std::string& path, const ActionRegistry& actions);

}  // namespace harel::runtime
