// DurableRunner: the runtime for blocking code — drives executions through any
// ExecutionStore, one commit per event, so a workflow survives crashes,
// restarts and concurrent workers.
//
// A thin facade over AsyncRunner (async_runner.h, which states the
// guarantees): each call runs the core's coroutine to completion on the
// calling thread, with the store's calls made inline. There is no transport:
// a commit's emits are applied to their targets and its spawns created right
// after the commit, so relay_once() and sweep_once() are recovery and timers.
//
// Thread safety: a runner may be shared by threads, and several runners (in
// several processes) may work on one store concurrently.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include <boost/json/object.hpp>

#include "harel/runtime/definitions.h"
#include "harel/runtime/runner_options.h"
#include "harel/store/execution_store.h"

namespace harel::runtime {

class DurableRunner {
 public:
  DurableRunner(ExecutionStore& store, std::shared_ptr<const Definitions> definitions, RunnerOptions options = {});
  ~DurableRunner();
  DurableRunner(const DurableRunner&) = delete;
  DurableRunner& operator=(const DurableRunner&) = delete;

  // As AsyncRunner::create / process / relay_once / sweep_once.
  Execution create(std::string_view definition_id, boost::json::object context = {},
                   std::optional<std::string> id = std::nullopt);
  ProcessOutcome process(std::string_view id, const Event& event);
  std::int64_t relay_once(std::chrono::milliseconds grace = std::chrono::milliseconds(0));
  std::int64_t sweep_once();

  const RunnerStats& stats() const;
  EpochSeconds now() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// A fresh event of `kind` with a unique id (for events from outside).
Event make_event(std::string kind, boost::json::object data = {});

}  // namespace harel::runtime
