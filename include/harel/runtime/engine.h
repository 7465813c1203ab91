// The statechart engine: (definition, execution, event) → next execution + effects.
//
// Pure and deterministic: no IO, no clock (the caller passes `now`), no
// randomness; the same inputs always give the same Step, so a step recomputed
// after a version conflict commits exactly what the lost attempt would have.
// The runner persists each Step with one ExecutionStore::commit.
//
// Semantics, in brief (definition.h has the format):
// * Configuration. An execution's active states are its active leaf
//   (Execution::active_path) and that leaf's ancestors, down from its scope:
//   the whole chart for a root execution, one region (Execution::root_path)
//   for a child. While a parallel state is active, it is the parent's leaf.
// * Transitions are external: exit from the leaf up to (not including) the
//   nearest common proper ancestor of source and target, running on_exit
//   innermost-first and recording history[compound path] = the leaf's path;
//   then the transition's actions; then enter down to the target and into its
//   initial descendants, running on_enter outermost-first. "on" transitions
//   are looked up from the leaf outwards; the first enabled one wins.
// * After every entry, enabled "always" transitions (guards on the context)
//   are taken until none is; more than kMaxAutomaticSteps of them in one step
//   fails the execution instead of hanging.
// * Timeouts: entering a state with a timeout schedules a timer (its path,
//   now + after), leaving it cancels the timer. A "Timeout" event with data
//   {"path": p} takes the timeout transition of state p if p is still active,
//   otherwise it is unhandled (a stale timer).
// * Parallel states: entering one spawns one child execution per region
//   (child id "<parent id>.<state path>.<region>.<n>", n = invoke_seq[state
//   path]) with a copy of the context. A child that enters a final state of
//   its region emits "Finished" {"child_id", "outcome"} to its parent. The
//   parent marks the child finished; when every child of the current entry
//   has finished it takes "on_failed" (if any child failed and it is set) or
//   "on_done". A Finished for an unknown or already finished child is
//   unhandled, so redelivery is harmless.
// * Final states end the execution: status DONE, FAILED for outcome "failed",
//   CANCELLED for "cancelled"; outcome set. A terminal execution handles no
//   more events. An action that throws, or runaway automatic transitions, end
//   it FAILED with outcome "failed" and `error` set; that step's other effects
//   are dropped (a child still reports Finished).
// * Emitted event ids are "<execution id>:<version + 1>:<n>", created and
//   received times null.
#pragma once

#include <memory>

#include "harel/model/effects.h"
#include "harel/model/event.h"
#include "harel/model/execution.h"
#include "harel/model/timer.h"
#include "harel/runtime/actions.h"
#include "harel/runtime/definition.h"

namespace harel::runtime {

// The outcome of one engine call.
struct Step {
  Execution execution;  // the next state; version untouched (commit bumps it)
  // emits, spawns, timers, and always one trace step {"event_id", "event_kind",
  // "from_path", "to_path", "status", "handled"} (+ "error" when the step failed
  // the execution). processed_event_id is left to the runner.
  Effects effects;
  bool handled = false;  // false: no transition was enabled (nothing changed but processed_events)
};

class Engine {
 public:
  // Automatic transitions allowed in one step before the execution fails.
  static constexpr int kMaxAutomaticSteps = 100;

  // Throws InvalidArgument if `definition` names an action `actions` lacks.
  Engine(std::shared_ptr<const Definition> definition, std::shared_ptr<const ActionRegistry> actions);

  const Definition& definition() const noexcept { return *definition_; }

  // Enters the initial configuration of a new execution: `exe` has id,
  // definition_id, context, and for a child root_path/parent_id/child_id set,
  // version 0, status PENDING. Returns it RUNNING (or already final) with the
  // effects of entering (timers, spawns, emits). Actions see a synthetic event
  // {"id": "<id>:start", "kind": "Start"}. Throws InvalidArgument if `exe` is
  // not PENDING, belongs to another definition, or names an unknown region.
  Step start(const Execution& exe, EpochSeconds now) const;

  // Handles one event. Unhandled events (no enabled transition, or an
  // execution that is not RUNNING) return handled=false with the execution
  // unchanged except processed_events+1 and a trace step. processed_events
  // increments once per call. Throws InvalidArgument if `exe` belongs to
  // another definition or its active_path/root_path is not in it.
  Step handle(const Execution& exe, const Event& event, EpochSeconds now) const;

 private:
  std::shared_ptr<const Definition> definition_;
  std::shared_ptr<const ActionRegistry> actions_;
};

}  // namespace harel::runtime
