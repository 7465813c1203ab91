// `harelctl demo`: the main job — runs N order workflows end to end on a store
// and proves they all reached the right final state exactly once.
#pragma once

#include <string>

#include "commands.h"

namespace harelctl {

struct DemoOptions {
  int orders = 200;
  int workers = 4;        // Worker instances, each on a thread and event loop of its own
  int concurrency = 64;   // events in flight per worker
  bool trace = false;     // opt-in execution trace
  std::string run_id;   // order ids are "order-<run>-<n>"; default: random. Reusing one resumes that run.
};

// Returns 0 when every order reached its expected outcome and the outbox,
// spawns and timers of the run drained; 1 otherwise (with the reason).
int demo(const Globals& g, const DemoOptions& o);

}  // namespace harelctl
