#include "harel/runtime/worker.h"

#include <unistd.h>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "harel/errors.h"
#include "runtime/failures.h"
#include "runtime/recovery_lease.h"
#include "util/random_id.h"

namespace harel::runtime {

namespace asio = boost::asio;
using asio::awaitable;
using asio::use_awaitable;
using std::chrono::milliseconds;

namespace {

std::string default_worker_id() {
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) != 0) host[0] = '\0';
  return std::string(host) + ":" + std::to_string(::getpid()) + ":" + util::random_id().substr(0, 8);
}

}  // namespace

// What one run() keeps on its event loop.
struct Worker::Loop {
  Worker& w;
  asio::any_io_executor executor;
  asio::steady_timer wake;         // the claimer's pause; cancelled when a slot frees or on stop
  asio::steady_timer maintenance;  // the recovery loop's pause
  RecoveryLease recovery;
  bool maintaining = false;

  Loop(Worker& worker, asio::any_io_executor ex)
      : w(worker),
        executor(ex),
        wake(ex),
        maintenance(ex),
        recovery(worker.store_, worker.options_.worker_id, worker.options_.recovery_lease,
                 [&runner = worker.runner_] { return runner.now(); }) {}

  void report(const std::string& line) const {
    if (w.options_.on_error) w.options_.on_error(line);
  }

  static awaitable<void> pause(asio::steady_timer& timer, milliseconds d) {
    timer.expires_after(d);
    co_await timer.async_wait(asio::as_tuple(use_awaitable));  // cancelled: woken early
  }

  milliseconds retry_delay(std::int64_t attempts) const {
    milliseconds d = w.options_.retry_delay;
    for (std::int64_t i = 0; i < attempts && d < w.options_.max_retry_delay; ++i) d *= 2;
    return std::min(d, w.options_.max_retry_delay);
  }

  // One lease: process, then ack — or defer, nack or park on failure.
  // Returns whether the event was applied and acked.
  awaitable<bool> handle(Lease lease) {
    const std::exception_ptr error = co_await capture([&]() -> awaitable<void> {
      co_await w.runner_.process(lease.group_id, lease.event);
      co_await w.runner_.settle(lease.settle);
    });
    if (!error) {
      // false: the lease had expired (another worker may have it now); the
      // event was applied all the same, and its dedupe mark absorbs a replay.
      if (co_await w.transport_.async_ack(std::move(lease), use_awaitable)) ++w.stats_.acked;
      co_return true;
    }
    const std::string what = "event '" + lease.event.id + "' for '" + lease.group_id + "': " + describe(error);
    if (is<UnknownDefinition>(error)) {
      ++w.stats_.deferred;
      co_await w.transport_.async_defer(std::move(lease), w.options_.defer_delay, use_awaitable);
    } else if (lease.attempts + 1 >= w.options_.max_attempts) {
      ++w.stats_.parked;
      report("parked " + what);
      co_await w.transport_.async_park(std::move(lease), describe(error), use_awaitable);
    } else {
      ++w.stats_.retried;
      report("retrying " + what);
      const milliseconds delay = retry_delay(lease.attempts);
      co_await w.transport_.async_nack(std::move(lease), delay, use_awaitable);
    }
    co_return false;
  }

  // A group's leases from one claim, in group order. Once one is not applied,
  // the rest go back at once behind it, so the group keeps its order.
  awaitable<void> handle_group(std::vector<Lease> leases) {
    bool in_order = true;
    for (Lease& lease : leases) {
      const std::string id = lease.event.id;
      if (auto error = co_await capture([&]() -> awaitable<void> {
            if (in_order)
              in_order = co_await handle(std::move(lease));
            else
              co_await w.transport_.async_defer(std::move(lease), milliseconds(0), use_awaitable);
          })) {
        in_order = false;
        report("lease of event '" + id + "' left to expire: " + describe(error));
      }
      --w.stats_.in_flight;
      wake.cancel();
    }
  }

  // once: fires due timers and delivers every row left behind, at once.
  awaitable<void> recover_now() {
    co_await w.runner_.sweep_once();
    co_await w.runner_.relay_once(milliseconds(0));
  }

  // Runs while `maintaining`, which run() sets before starting it.
  awaitable<void> maintain() {
    auto next_relay = std::chrono::steady_clock::now();
    while (!w.stopping_) {
      const auto error = co_await capture([&]() -> awaitable<void> {
        if (!co_await recovery.try_hold()) co_return;
        co_await w.runner_.sweep_once();
        if (std::chrono::steady_clock::now() < next_relay) co_return;
        next_relay = std::chrono::steady_clock::now() + w.options_.recovery_interval;
        co_await w.runner_.relay_once(w.options_.recovery_grace);
      });
      if (error) report("recovery pass failed: " + describe(error));
      if (w.stopping_) break;
      co_await pause(maintenance, w.options_.timer_interval);
    }
    if (auto error = co_await capture([&]() -> awaitable<void> { co_await recovery.release(); }))
      report("recovery lease not released: " + describe(error));
    maintaining = false;
    wake.cancel();
  }

  awaitable<void> run() {
    const WorkerOptions& o = w.options_;
    if (o.once) {
      co_await recover_now();
    } else {
      maintaining = true;
      asio::co_spawn(executor, maintain(), asio::detached);
    }

    milliseconds idle{1};
    bool recovered_since_claim = o.once;  // once: drained when a recovery pass leaves nothing to claim
    while (!w.stopping_) {
      const auto free_slots = o.concurrency - w.stats_.in_flight.load();
      if (free_slots <= 0) {
        co_await pause(wake, o.idle_wait);
        continue;
      }
      std::vector<Lease> leases;
      const int batch = static_cast<int>(std::min<std::int64_t>(free_slots, 10));
      if (auto error = co_await capture([&]() -> awaitable<void> {
            leases = co_await w.transport_.async_claim(o.worker_id, o.visibility, batch, use_awaitable);
          })) {
        // The transport failed (its own retries spent): try again later.
        report("claim failed: " + describe(error));
        co_await pause(wake, std::max(o.idle_wait, milliseconds(1000)));
        continue;
      }
      if (leases.empty()) {
        if (o.once && w.stats_.in_flight == 0) {
          // Drained, unless a recovery pass (timers come due, rows left
          // behind) gives the next claim something.
          if (recovered_since_claim) break;
          co_await recover_now();
          recovered_since_claim = true;
          continue;
        }
        co_await pause(wake, idle);
        idle = std::min(idle * 2, o.idle_wait);
        continue;
      }
      idle = milliseconds(1);
      recovered_since_claim = false;
      w.stats_.claimed += static_cast<std::int64_t>(leases.size());
      w.stats_.in_flight += static_cast<std::int64_t>(leases.size());
      // Leases of one group come in group order: one task handles them in turn.
      while (!leases.empty()) {
        const std::string group_id = leases.front().group_id;
        std::vector<Lease> group, rest;
        for (Lease& l : leases) (l.group_id == group_id ? group : rest).push_back(std::move(l));
        asio::co_spawn(executor, handle_group(std::move(group)), asio::detached);
        leases.swap(rest);
      }
    }
    while (w.stats_.in_flight > 0 || maintaining) co_await pause(wake, milliseconds(100));
  }
};

Worker::Worker(AsyncRunner& runner, AsyncExecutionStore& store, AsyncTransport& transport, WorkerOptions options)
    : runner_(runner), store_(store), transport_(transport), options_(std::move(options)) {
  if (!runner_.has_transport()) throw InvalidArgument("worker: the runner must publish to the worker's transport");
  if (options_.worker_id.empty()) options_.worker_id = default_worker_id();
  if (options_.concurrency <= 0) throw InvalidArgument("worker: concurrency must be positive");
  if (options_.max_attempts <= 0) throw InvalidArgument("worker: max_attempts must be positive");
  if (options_.visibility.count() <= 0) throw InvalidArgument("worker: visibility must be positive");
}

Worker::~Worker() = default;

awaitable<void> Worker::run() {
  Loop loop(*this, co_await asio::this_coro::executor);
  {
    std::lock_guard lock(control_->mu);
    control_->loop = &loop;
  }
  const std::exception_ptr error = co_await capture([&]() -> awaitable<void> { co_await loop.run(); });
  {
    std::lock_guard lock(control_->mu);
    control_->loop = nullptr;
  }
  if (error) std::rethrow_exception(error);
}

void Worker::stop() {
  stopping_ = true;
  std::lock_guard lock(control_->mu);
  if (!control_->loop) return;
  // The timers belong to the loop's thread: cancel them there.
  asio::post(control_->loop->executor, [control = control_] {
    std::lock_guard inner(control->mu);
    if (!control->loop) return;
    control->loop->wake.cancel();
    control->loop->maintenance.cancel();
  });
}

}  // namespace harel::runtime
