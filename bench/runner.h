// Drives a run's operations and records each one's latency and outcome:
// sequentially on the calling thread, or `concurrency` at a time on one
// io_context run by the calling thread (no other thread does any work).
#pragma once

#include <boost/asio/io_context.hpp>

#include <chrono>
#include <cstdint>
#include <exception>
#include <functional>
#include <string>
#include <vector>

#include "progress.h"

namespace harel::bench {

// Completes one asynchronous operation.
using Done = std::function<void(std::exception_ptr)>;
using StartOp = std::function<void(std::size_t index, Done done)>;

class Recorder {
 public:
  explicit Recorder(std::size_t total, Progress* progress = nullptr);

  void record(std::chrono::steady_clock::duration latency, std::exception_ptr error);

  std::size_t done() const { return latencies_ns_.size(); }
  std::size_t errors() const { return errors_; }
  const std::string& first_error() const { return first_error_; }
  // Raises the first failure, if any (for unmeasured setup runs).
  void rethrow_first() const;
  // Nanoseconds at quantile q in [0, 1]; sorts the samples.
  double quantile_ns(double q);

 private:
  Progress* progress_;
  std::vector<std::int64_t> latencies_ns_;
  std::size_t errors_ = 0;
  std::exception_ptr first_;
  std::string first_error_;
};

// Operations 0..total-1, one after another.
void run_sequential(std::size_t total, const std::function<void(std::size_t)>& op, Recorder& recorder);

// Operations 0..total-1 with `concurrency` in flight: worker w runs w, w+c,
// w+2c, ... one after another, so one worker's operations never overlap (the
// workloads rely on it: two commits on one execution are never in flight at
// once). Returns when all have completed (io.run() ran out of work).
void run_concurrent(boost::asio::io_context& io, std::size_t total, std::size_t concurrency, const StartOp& start,
                    Recorder& recorder);

// The text of an exception_ptr's exception.
std::string describe(const std::exception_ptr& error);

}  // namespace harel::bench
