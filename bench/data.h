// The benchmark's records: executions and events shaped like a real order
// workflow's (a context of a dozen fields, some history), so that request
// and response sizes — and with them the JSON work — are realistic.
#pragma once

#include <cstdint>
#include <random>
#include <string>

#include "harel/model/effects.h"
#include "harel/model/execution.h"

namespace harel::bench {

class DataGenerator {
 public:
  explicit DataGenerator(std::uint64_t seed) : rng_(seed) {}

  // A RUNNING execution that was never stored (version 0).
  Execution execution(std::string id);
  // An event for the outbox.
  Event event(std::string id);
  // What a worker's step commits: one emit, the handled event's dedupe mark,
  // and a re-armed timeout.
  Effects step_effects(const Execution& exe, std::string handled_event_id);

 private:
  std::string word();

  std::mt19937_64 rng_;
};

}  // namespace harel::bench
