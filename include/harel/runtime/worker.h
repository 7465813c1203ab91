// Worker: a transport's consumer — one of a fleet of processes that share the
// load, each execution advanced by exactly one worker at a time.
//
// Main loop, up to `concurrency` events in flight on one event loop:
//   claim a lease (the transport hands out one message per execution at a
//   time) → AsyncRunner::process (load_for_event → engine → one commit →
//   publish the commit's emits, create its children, ack their rows) → ack.
//
// Poison isolation: an event whose processing fails is nacked with a
// doubling delay; once it has failed `max_attempts` times it is parked in the
// transport (Transport::parked lists it with its last error) and never holds
// back another execution. An action that throws does not fail the event: the
// engine fails the execution (status FAILED, error recorded) and the event is
// acked. An execution of a definition this worker does not know is deferred
// (Transport::defer, not counted as a failure) for a worker that knows it.
//
// Recovery: every timer_interval the worker tries to hold (or renews) the
// fleet's recovery lease (one holder at a time, kept in the store); its
// holder fires due timers then (publishing their Timeout events), and every
// recovery_interval delivers outbox and spawn rows pending for longer than
// recovery_grace — what a crashed worker left between its commit and its
// acks. A dead holder's lease is taken over when it expires.
//
// once: recover every pending row (grace 0) and fire due timers, then drain
// the transport until nothing is claimable and nothing is in flight, and
// return — for scripts and tests.
//
// Shutdown: stop() (any thread) stops claiming; run() completes once the
// events in flight have been finished, and gives the recovery lease up.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>

#include <boost/asio/awaitable.hpp>
#include <boost/asio/any_io_executor.hpp>

#include "harel/runtime/async_runner.h"
#include "harel/transport/async_transport.h"

namespace harel::runtime {

struct WorkerOptions {
  std::string worker_id;  // default: "<host>:<pid>:<random>"
  int concurrency = 64;   // events in flight at most
  std::chrono::milliseconds visibility{30000};  // a lease's length
  int max_attempts = 5;                         // failures before an event is parked
  std::chrono::milliseconds retry_delay{500};   // first nack delay, doubling per failure
  std::chrono::milliseconds max_retry_delay{30000};
  std::chrono::milliseconds defer_delay{2000};  // how long an event of an unknown definition waits
  std::chrono::milliseconds idle_wait{50};      // longest pause between claims that found nothing
  std::chrono::milliseconds timer_interval{200};  // how late a timer may fire
  std::chrono::milliseconds recovery_interval{2000};
  std::chrono::milliseconds recovery_grace{30000};
  std::chrono::milliseconds recovery_lease{5000};
  bool once = false;
  // Told each failure the worker recovers from (a lease lost, a recovery
  // pass that failed, an event nacked or parked), one line each.
  std::function<void(const std::string&)> on_error;
};

struct WorkerStats {
  std::atomic<std::int64_t> claimed{0};
  std::atomic<std::int64_t> acked{0};
  std::atomic<std::int64_t> retried{0};   // nacked after a failure
  std::atomic<std::int64_t> deferred{0};  // left for a worker that knows the definition
  std::atomic<std::int64_t> parked{0};
  std::atomic<std::int64_t> in_flight{0};
};

class Worker {
 public:
  // The runner must have been built with `transport`.
  Worker(AsyncRunner& runner, AsyncExecutionStore& store, AsyncTransport& transport, WorkerOptions options = {});
  ~Worker();
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  // Runs until stop() (or, with once, until drained). Run it on a
  // single-threaded loop: co_spawn(io, worker.run(), token).
  boost::asio::awaitable<void> run();
  // Stops claiming; safe from any thread (and before run()).
  void stop();

  const WorkerStats& stats() const { return stats_; }
  const std::string& id() const { return options_.worker_id; }

 private:
  struct Loop;
  // What stop() reaches from another thread: shared, so that a stop posted
  // to the loop stays safe after the Worker is gone.
  struct Control {
    std::mutex mu;
    Loop* loop = nullptr;  // while run() runs
  };
  AsyncRunner& runner_;
  AsyncExecutionStore& store_;
  AsyncTransport& transport_;
  WorkerOptions options_;
  WorkerStats stats_;
  std::atomic<bool> stopping_{false};
  std::shared_ptr<Control> control_ = std::make_shared<Control>();
};

}  // namespace harel::runtime
