// AsyncRunner: the runtime's one core — drives executions through any store
// (AsyncExecutionStore) as C++20 coroutines, many at a time on one event loop.
// DurableRunner (blocking) and Worker (a transport's consumer) are built on it.
//
// * process(id, event): load_for_event (execution + dedupe mark in one step)
//   → the pure engine → ONE commit carrying the new execution, its outbox
//   emits, spawn intents, timer ops, the dedupe mark and (opt-in) a trace
//   step. A StoreConflict (another worker advanced the execution) reloads and
//   recomputes, up to a budget; an already-processed event is a no-op. So an
//   event is applied exactly once however often it is delivered.
// * Right after its commit, a step's effects are delivered: with a transport,
//   each targeted emit is published to its target's group (dedupe id
//   "outbox:<scope>:<seq>"); without one, it is applied to its target at once
//   by process(). Each spawn intent becomes its child execution (whose own
//   effects are delivered the same way). Then their outbox and spawn rows are
//   acked. So the steady state does no duplicate work, and a crash between
//   commit and ack leaves only rows for relay_once to recover.
// * relay_once(grace): recovery. Rows pending for at least `grace` (as first
//   seen by this runner; 0: every row now) are delivered as above and acked.
//   A row whose handling fails is kept (on_kept is told) and never holds back
//   the rows behind it.
// * sweep_once(): each due timer becomes a Timeout event {"path"} with an id
//   derived from the timer (so a timer fired twice is deduplicated), published
//   or applied, then delete_timer guarded on fire_at (a re-armed timer
//   survives).
// Actions run inside the engine and may run more than once for one event (a
// conflict recomputes the step): keep them free of outside side effects.
//
// Coroutines: each operation returns an asio::awaitable; co_await it inside a
// coroutine, or start it with boost::asio::co_spawn(executor, op, token) for
// any completion token. Errors are raised as the store raises them;
// process() raises UnknownDefinition for an execution of a definition this
// runner lacks, and the last StoreConflict when the retry budget is spent.
//
// Lifetimes: the store, the transport and the definitions must outlive every
// operation. A runner may be used from several threads and event loops.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <optional>
#include <string>

#include <boost/asio/awaitable.hpp>
#include <boost/json/object.hpp>

#include "harel/runtime/definitions.h"
#include "harel/runtime/runner_options.h"
#include "harel/store/async_execution_store.h"
#include "harel/transport/async_transport.h"

namespace harel::runtime {

class AsyncRunner {
 public:
  // `transport` null: a commit's emits are applied by this runner itself.
  AsyncRunner(AsyncExecutionStore& store, std::shared_ptr<const Definitions> definitions, RunnerOptions options = {},
              AsyncTransport* transport = nullptr);

  // Creates and starts a root execution of `definition_id` (`id` unset: a
  // fresh unique id) and delivers the effects of its start. An existing id
  // raises InvalidArgument.
  boost::asio::awaitable<Execution> create(std::string definition_id, boost::json::object context = {},
                                           std::optional<std::string> id = std::nullopt);

  // Applies `event` to execution `id`, exactly once (see the header comment).
  boost::asio::awaitable<ProcessOutcome> process(std::string id, Event event);

  // One recovery pass; returns the rows handled.
  boost::asio::awaitable<std::int64_t> relay_once(std::chrono::milliseconds grace = std::chrono::milliseconds(0));

  // One timer sweep over everything due now; returns the timers fired (a
  // timer whose Timeout was already processed is deleted, not counted).
  boost::asio::awaitable<std::int64_t> sweep_once();

  // Settles in the store what a message of a non-durable transport carried,
  // once its event was applied (see Settlement in transport.h).
  boost::asio::awaitable<void> settle(Settlement settlement);

  const RunnerStats& stats() const { return stats_; }
  EpochSeconds now() const { return options_.clock(); }
  bool has_transport() const noexcept { return transport_ != nullptr; }

 private:
  struct Core;
  friend struct Core;

  AsyncExecutionStore& store_;
  std::shared_ptr<const Definitions> definitions_;
  RunnerOptions options_;
  AsyncTransport* transport_;
  RunnerStats stats_;
  std::mutex seen_mu_;
  // When relay_once first saw each pending row (for `grace`).
  std::map<std::int64_t, EpochSeconds> outbox_seen_, spawns_seen_;
  // Timeouts published on a non-durable transport whose timers their
  // consumers have not deleted yet: not published again meanwhile.
  std::set<std::string> timeouts_published_;
};

}  // namespace harel::runtime
