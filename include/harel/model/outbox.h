// Pending work the relay drains: outbox events and spawn intents.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <boost/json/object.hpp>

#include "harel/model/event.h"

namespace harel {

// A committed event waiting for delivery. `seq` is globally monotonic (not
// necessarily gapless), so the relay delivers oldest first.
struct OutboxEntry {
  std::int64_t seq = 0;
  std::optional<std::string> target_id;
  Event event;

  friend bool operator==(const OutboxEntry&, const OutboxEntry&) = default;
};

// A committed orthogonal-fork child waiting to be created.
struct SpawnEntry {
  std::int64_t seq = 0;
  std::string parent_id;
  std::string child_id;
  std::string root_path;
  boost::json::object context;

  friend bool operator==(const SpawnEntry&, const SpawnEntry&) = default;
};

}  // namespace harel
