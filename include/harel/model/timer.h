// Durable timers: what a commit asks for, and what the sweep finds due.
#pragma once

#include <string>

namespace harel {

// Seconds since the Unix epoch, fractional (a DynamoDB number on the wire).
using EpochSeconds = double;

// Arm or disarm the timer of one state of an Execution. Scheduling an
// already-armed (execution, path) replaces it.
struct TimerOp {
  enum class Action { Schedule, Cancel };
  Action action = Action::Schedule;
  std::string path;          // the state that owns the timer
  EpochSeconds fire_at = 0;  // ignored for Cancel

  static TimerOp schedule(std::string path, EpochSeconds fire_at) {
    return {Action::Schedule, std::move(path), fire_at};
  }
  static TimerOp cancel(std::string path) { return {Action::Cancel, std::move(path), 0}; }

  friend bool operator==(const TimerOp&, const TimerOp&) = default;
};

// A stored timer whose fire_at has passed.
struct DueTimer {
  std::string execution_id;
  std::string path;
  EpochSeconds fire_at = 0;

  friend bool operator==(const DueTimer&, const DueTimer&) = default;
};

}  // namespace harel
