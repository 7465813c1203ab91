// Everything one commit writes besides the Execution itself.
//
// The store applies an Effects atomically with the Execution's CAS write: all
// of it lands, or (on StoreConflict or any error) none of it does.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <boost/json/object.hpp>

#include "harel/model/event.h"
#include "harel/model/timer.h"

namespace harel {

// An event for the outbox. `target_id` empty (nullopt) means "no target":
// the relay hands it to whoever consumes untargeted events; it round-trips as
// JSON/DynamoDB null.
struct Emit {
  std::optional<std::string> target_id;
  Event event;

  friend bool operator==(const Emit&, const Emit&) = default;
};

// An orthogonal-fork child to create, recorded durably so the relay can
// create it after the parent's commit even if this process dies.
struct SpawnRequest {
  std::string child_id;   // deterministic, so a re-delivered spawn is idempotent
  std::string root_path;  // the region the child runs
  boost::json::object context;

  friend bool operator==(const SpawnRequest&, const SpawnRequest&) = default;
};

// One step of the opt-in execution trace: any JSON object.
using TraceStep = boost::json::object;

struct Effects {
  std::vector<Emit> emits;
  std::vector<SpawnRequest> spawns;
  std::vector<TimerOp> timers;
  // The event this commit handled; its dedupe mark is written with the commit.
  std::optional<std::string> processed_event_id;
  std::optional<TraceStep> trace;

  bool empty() const {
    return emits.empty() && spawns.empty() && timers.empty() && !processed_event_id && !trace;
  }
};

// Where a commit put its outbox events and spawn intents. One commit's seqs
// are consecutive and in the order of Effects::emits / Effects::spawns, so
// whoever delivers them right after the commit can ack exactly those rows.
struct CommitReceipt {
  std::int64_t first_outbox_seq = 0;  // seq of emits[0]; 0 when there were no emits
  std::int64_t first_spawn_seq = 0;   // seq of spawns[0]; 0 when there were no spawns

  std::int64_t outbox_seq(std::size_t i) const { return first_outbox_seq + static_cast<std::int64_t>(i); }
  std::int64_t spawn_seq(std::size_t i) const { return first_spawn_seq + static_cast<std::int64_t>(i); }
};

}  // namespace harel
