// One measured run: a workload in a mode, and what it cost.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "progress.h"
#include "stores.h"
#include "workload.h"

namespace harel::bench {

// How the operations are driven.
enum class Path {
  Sync,   // DynamoDBStore, one operation after another
  Async,  // AsyncDynamoDBStore, `concurrency` in flight on the benchmark thread
  Raw,    // the store's requests, captured beforehand, sent by the bare client
  Wire,   // the same requests, prewritten, on plain sockets: the transport floor (wire.h)
};

struct Mode {
  Path path = Path::Sync;
  std::size_t concurrency = 1;

  // "sync", "async-N", "raw-N", "wire-N"; raises std::invalid_argument otherwise.
  static Mode parse(std::string_view text);
  std::string name() const;
};

struct Result {
  std::string workload;
  Mode mode;
  std::size_t round = 1;  // 1..rounds: every mode runs once per round
  std::size_t ops = 0;
  std::size_t errors = 0;
  std::string first_error;
  double seconds = 0;
  double ops_per_s = 0;
  double p50_us = 0;
  double p99_us = 0;
  // getrusage(RUSAGE_SELF) user + system of this process over the measured
  // loop, per operation. The server runs in another process: not included.
  double cpu_us_per_op = 0;
  // The user-space part alone: what the client's own code costs. The rest
  // is the kernel's, mostly loopback TCP (the receiver's side is charged to
  // the sender) and waking the event loop when an answer arrives.
  double user_us_per_op = 0;
  // Times per operation the event loop slept and was woken (voluntary
  // context switches): each costs kernel CPU, and a server slower than the
  // client makes it sleep once per answer.
  double wakeups_per_op = 0;
  long peak_rss_kb = 0;  // ru_maxrss: the process's peak so far
};

// Prepares the workload's data for the run (unmeasured), opens the mode's
// connections (unmeasured), then measures `ops` operations. `label` names
// the run on the progress line (default: workload and mode).
Result measure(Workload& workload, const Mode& mode, Stores& stores, DataGenerator& data, std::size_t ops,
               Progress& progress, std::string_view label = {});

}  // namespace harel::bench
