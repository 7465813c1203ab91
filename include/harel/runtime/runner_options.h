// What DurableRunner, AsyncRunner and Worker share: options, counters and
// the outcome of applying one event.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>

#include "harel/model/timer.h"

namespace harel::runtime {

struct RunnerOptions {
  bool trace = false;               // write one trace step per commit
  int conflict_retries = 32;        // reloads after StoreConflict before giving up
  std::function<EpochSeconds()> clock;  // default: the system clock
  // Names the store in the dedupe ids of published outbox rows
  // ("outbox:<scope>:<seq>"), so that stores sharing one transport never
  // dedupe each other's rows. harelctl uses the store URL.
  std::string dedupe_scope;
  // Told one line for each pending row a relay pass kept because handling it
  // failed (the row stays pending; the pass goes on with the next one).
  std::function<void(const std::string&)> on_kept;
};

// Counters a runner keeps (monotonic, readable while it runs).
struct RunnerStats {
  std::atomic<std::int64_t> events{0};             // events committed (handled or not)
  std::atomic<std::int64_t> duplicates{0};         // events found already processed
  std::atomic<std::int64_t> conflicts_retried{0};  // StoreConflicts recomputed
  std::atomic<std::int64_t> outbox_delivered{0};   // outbox entries delivered (or published) and acked
  std::atomic<std::int64_t> undeliverable{0};      // outbox entries without an existing target (acked)
  std::atomic<std::int64_t> spawns_created{0};     // children created from spawn intents
  std::atomic<std::int64_t> timers_fired{0};       // due timers turned into Timeout events
  std::atomic<std::int64_t> recovered{0};          // rows a relay pass found left behind and delivered
  std::atomic<std::int64_t> kept{0};               // rows a relay pass kept because handling them failed
};

enum class ProcessOutcome {
  Handled,    // a transition was taken and committed
  Unhandled,  // committed as processed, nothing enabled (e.g. a stale timer)
  Duplicate,  // the event had already been processed: nothing written
  NotFound,   // no execution with that id: nothing written
};

}  // namespace harel::runtime
