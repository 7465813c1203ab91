// The workers `harelctl demo` runs, threads of its own process or
// `harelctl worker` processes, and the counters a run adds up.
#pragma once

#include <cstdint>
#include <utility>

#include "harel/runtime/runner_options.h"

namespace harelctl {

// What a run did: its runners' counters and its workers' parked events.
struct WorkerCounts {
  std::int64_t events = 0;
  std::int64_t duplicates = 0;
  std::int64_t conflicts_retried = 0;
  std::int64_t outbox_delivered = 0;
  std::int64_t recovered = 0;
  std::int64_t spawns_created = 0;
  std::int64_t timers_fired = 0;
  std::int64_t parked = 0;
  double cpu_s = 0;  // CPU spent in worker processes (the demo measures its own apart)

  WorkerCounts& operator+=(const WorkerCounts& other);
};

// Each counter under its name in `harelctl worker --json` and `harelctl demo --json`.
inline constexpr std::pair<const char*, std::int64_t WorkerCounts::*> kWorkerCounters[] = {
    {"events", &WorkerCounts::events},
    {"duplicates", &WorkerCounts::duplicates},
    {"conflicts_retried", &WorkerCounts::conflicts_retried},
    {"outbox_delivered", &WorkerCounts::outbox_delivered},
    {"recovered", &WorkerCounts::recovered},
    {"spawns_created", &WorkerCounts::spawns_created},
    {"timers_fired", &WorkerCounts::timers_fired},
    {"parked", &WorkerCounts::parked},
};

inline WorkerCounts& WorkerCounts::operator+=(const WorkerCounts& other) {
  for (const auto& [name, counter] : kWorkerCounters) this->*counter += other.*counter;
  cpu_s += other.cpu_s;
  return *this;
}

// A runner's counters as they stand (`parked` is the workers' to count).
inline WorkerCounts counts_of(const harel::runtime::RunnerStats& s) {
  WorkerCounts c;
  c.events = s.events.load();
  c.duplicates = s.duplicates.load();
  c.conflicts_retried = s.conflicts_retried.load();
  c.outbox_delivered = s.outbox_delivered.load();
  c.recovered = s.recovered.load();
  c.spawns_created = s.spawns_created.load();
  c.timers_fired = s.timers_fired.load();
  return c;
}

// A running set of workers, as the demo drives it: started, checked while it
// waits for the orders, stopped once they are done.
class DemoWorkers {
 public:
  virtual ~DemoWorkers() = default;
  // Throws if a worker has died: the events it would have applied never will,
  // and the demo must not wait for them forever.
  virtual void check() = 0;
  // Stops every worker (each finishes its events in flight), waits for them,
  // and returns what they counted that the demo's own runner did not.
  virtual WorkerCounts stop() = 0;
};

}  // namespace harelctl
