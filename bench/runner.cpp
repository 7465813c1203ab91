#include "runner.h"

#include <algorithm>
#include <memory>

namespace harel::bench {

using Clock = std::chrono::steady_clock;

Recorder::Recorder(std::size_t total, Progress* progress) : progress_(progress) { latencies_ns_.reserve(total); }

void Recorder::record(Clock::duration latency, std::exception_ptr error) {
  latencies_ns_.push_back(std::chrono::duration_cast<std::chrono::nanoseconds>(latency).count());
  if (error && errors_++ == 0) {
    first_ = error;
    first_error_ = describe(error);
  }
  if (progress_) progress_->update(latencies_ns_.size());
}

void Recorder::rethrow_first() const {
  if (first_) std::rethrow_exception(first_);
}

double Recorder::quantile_ns(double q) {
  if (latencies_ns_.empty()) return 0;
  const auto k = static_cast<std::size_t>(q * static_cast<double>(latencies_ns_.size() - 1) + 0.5);
  std::nth_element(latencies_ns_.begin(), latencies_ns_.begin() + static_cast<std::ptrdiff_t>(k), latencies_ns_.end());
  return static_cast<double>(latencies_ns_[k]);
}

std::string describe(const std::exception_ptr& error) {
  try {
    std::rethrow_exception(error);
  } catch (const std::exception& e) {
    return e.what();
  } catch (...) {
    return "unknown exception";
  }
}

void run_sequential(std::size_t total, const std::function<void(std::size_t)>& op, Recorder& recorder) {
  for (std::size_t i = 0; i < total; ++i) {
    const auto t0 = Clock::now();
    std::exception_ptr error;
    try {
      op(i);
    } catch (...) {
      error = std::current_exception();
    }
    recorder.record(Clock::now() - t0, error);
  }
}

namespace {

// One worker's chain: start an op; on its completion record it and start the next.
struct Worker : std::enable_shared_from_this<Worker> {
  Worker(std::size_t first, std::size_t step, std::size_t count, const StartOp& op, Recorder& rec)
      : next(first), stride(step), total(count), start(op), recorder(rec) {}

  void run() {
    if (next >= total) return;
    const std::size_t index = next;
    next += stride;
    const auto t0 = Clock::now();
    try {
      start(index, [self = shared_from_this(), t0](std::exception_ptr error) {
        self->recorder.record(Clock::now() - t0, error);
        self->run();
      });
    } catch (...) {  // failed before it started: no completion will come
      recorder.record(Clock::now() - t0, std::current_exception());
      run();
    }
  }

  std::size_t next;
  std::size_t stride;
  std::size_t total;
  const StartOp& start;
  Recorder& recorder;
};

}  // namespace

void run_concurrent(boost::asio::io_context& io, std::size_t total, std::size_t concurrency, const StartOp& start,
                    Recorder& recorder) {
  for (std::size_t w = 0; w < concurrency && w < total; ++w)
    std::make_shared<Worker>(w, concurrency, total, start, recorder)->run();
  io.restart();
  io.run();
}

}  // namespace harel::bench
