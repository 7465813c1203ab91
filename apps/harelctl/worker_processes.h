// `harelctl demo --processes P`: its workers as P `harelctl worker` processes
// on the demo's store and transport, one worker each, so the demo exercises a
// real multi-process fleet.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "commands.h"
#include "demo_workers.h"
#include "harel/errors.h"

namespace harelctl {

// A worker process could not be started, died, or did not stop cleanly.
class WorkerProcessError : public harel::Error {
 public:
  using harel::Error::Error;
};

// How long a worker process may take to stop after SIGTERM before it is killed.
inline constexpr std::chrono::seconds kWorkerStopTimeout{10};

// The transport worker processes can share: the effective one. InvalidArgument
// (naming the choices) when it or the store lives in one process.
std::string shared_transport_url(const Globals& g, int processes);

class WorkerProcesses final : public DemoWorkers {
 public:
  // Starts `count` children of this executable: `harelctl --store S --transport
  // T [--definitions D] --json worker --concurrency C --status-every 0 [--trace]`,
  // their stdout (the JSON summary) to a pipe each, their stderr passed through.
  WorkerProcesses(const Globals& g, const std::string& transport_url, int count, int concurrency, bool trace);
  // Stops (and reaps) the children still running: an error elsewhere must not
  // leave workers behind.
  ~WorkerProcesses() override;

  // Throws WorkerProcessError naming the first child that has exited.
  void check() override;
  // SIGTERM to each child, SIGKILL after kWorkerStopTimeout; each must exit 0 with a
  // summary, whose counters (and cpu_s) are summed.
  WorkerCounts stop() override;

 private:
  struct Child {
    pid_t pid = -1;
    int out = -1;                // read end of its stdout
    std::optional<int> status;   // once reaped
    bool killed = false;         // by us, after kWorkerStopTimeout
  };

  void start(const std::vector<std::string>& args);
  // SIGTERM to the children still running; waits for each, SIGKILL at kWorkerStopTimeout.
  void terminate();
  void shut_down();  // terminate(), then close the pipes
  std::string name(std::size_t i) const;

  std::vector<Child> children_;
};

}  // namespace harelctl
