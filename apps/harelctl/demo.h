// `harelctl demo`: the main job — runs N order workflows end to end on a store
// and proves they all reached the right final state exactly once.
#pragma once

#include <optional>
#include <string>

#include "commands.h"

namespace harelctl {

// Worker threads of one demo process unless --workers says otherwise.
inline constexpr int kDefaultWorkers = 4;

struct DemoOptions {
  int orders = 200;
  // > 1: the workers are that many `harelctl worker` processes, one worker
  // each, sharing the store and the effective transport (which must not be memory:).
  int processes = 1;
  // Worker instances of one process, each on a thread and event loop of its
  // own (default kDefaultWorkers); with processes > 1 only 1 is accepted.
  std::optional<int> workers;
  int concurrency = 64;   // events in flight per worker
  bool trace = false;     // opt-in execution trace
  std::string run_id;   // order ids are "order-<run>-<n>"; default: random. Reusing one resumes that run.
};

// Returns 0 when every order reached its expected outcome and the outbox,
// spawns and timers of the run drained; 1 otherwise (with the reason).
// Throws WorkerProcessError (worker_processes.h) when a worker process dies
// or does not stop cleanly.
int demo(const Globals& g, const DemoOptions& o);

}  // namespace harelctl
