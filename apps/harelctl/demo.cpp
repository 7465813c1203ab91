#include "demo.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <thread>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "demo_workers.h"
#include "fleet.h"
#include "harel/errors.h"
#include "harel/runtime/worker.h"
#include "output.h"
#include "worker_processes.h"

namespace harelctl {
namespace asio = boost::asio;
namespace bj = boost::json;
using namespace harel;

namespace {

// What order n does (examples/README.md): every 10th cancels in the cart,
// the one before it pays by voucher (its Invoice region declines: outcome
// failed), the rest pay by card and complete.
std::string expected_outcome(int n) {
  if (n % 10 == 9) return "cancelled";
  if (n % 10 == 8) return "failed";
  return "success";
}

// Event ids are derived from the order, so a demo re-run after a crash
// re-sends the same events and dedupe applies each exactly once.
Event scripted(const std::string& order, const std::string& step, std::string kind, bj::object data = {}) {
  return Event{order + ":" + step, std::move(kind), std::nullopt, std::nullopt, std::move(data), {}};
}

// Order n's events, in the order its group delivers them.
std::vector<Publication> script(const std::string& id, int n) {
  std::vector<Publication> events;
  for (int item = 0; item <= n % 3; ++item)
    events.push_back({id, scripted(id, "add-" + std::to_string(item), "AddItem"), std::nullopt});
  if (n % 10 == 9)
    events.push_back({id, scripted(id, "cancel", "Cancel"), std::nullopt});
  else
    events.push_back({id, scripted(id, "pay", "Pay", {{"method", n % 10 == 8 ? "voucher" : "card"}}), std::nullopt});
  return events;
}

std::string random_run_id() {
  std::mt19937 rng{std::random_device{}()};
  char buf[9];
  std::snprintf(buf, sizeof buf, "%08x", static_cast<unsigned>(rng()));
  return buf;
}

class Progress {
 public:
  explicit Progress(int total) : total_(total), tty_(::isatty(2) != 0) {}

  // `counts`: the run's counters so far, where this process can see them.
  void show(int done, double elapsed, const WorkerCounts* counts, bool final = false) {
    if (!tty_ && !final && elapsed - last_line_ < 2.0) return;
    last_line_ = elapsed;
    constexpr int kWidth = 30;
    const int filled = total_ ? done * kWidth / total_ : kWidth;
    std::string bar(static_cast<std::size_t>(filled), '#');
    bar.append(static_cast<std::size_t>(kWidth - filled), '.');
    std::fprintf(stderr, "%s[%s] %d/%d orders", tty_ ? "\r" : "", bar.c_str(), done, total_);
    if (counts)
      std::fprintf(stderr, "  %lld events  %lld conflicts retried  %.0f events/s", static_cast<long long>(counts->events),
                   static_cast<long long>(counts->conflicts_retried),
                   elapsed > 0 ? static_cast<double>(counts->events) / elapsed : 0.0);
    std::fprintf(stderr, "%s", tty_ && !final ? "" : "\n");
    std::fflush(stderr);
  }

 private:
  int total_;
  bool tty_;
  double last_line_ = -10;
};

// The fleet of one process: W workers, each on its own thread and event loop,
// sharing the store, the transport and the runner core (and so its counters).
class WorkerThreads final : public DemoWorkers {
 public:
  WorkerThreads(Fleet& fleet, int workers, int concurrency) {
    runtime::WorkerOptions options;
    options.concurrency = concurrency;
    // In one process a dead lease holder is a restarted demo: take over soon.
    options.recovery_lease = std::chrono::milliseconds(2000);
    options.on_error = [](const std::string& line) { std::cerr << "harelctl demo: " << line << '\n'; };
    for (int i = 0; i < workers; ++i) {
      workers_.push_back(std::make_unique<runtime::Worker>(*fleet.runner, *fleet.async_store, *fleet.async_transport, options));
      threads_.emplace_back([this, w = workers_.back().get()] {
        asio::io_context io;
        asio::co_spawn(io, w->run(), [this](std::exception_ptr e) {
          if (e) record(e);
        });
        io.run();
      });
    }
  }
  // Must not throw: a failure is stop()'s (or check()'s) to report.
  ~WorkerThreads() override { halt(); }

  void check() override {
    std::lock_guard lock(mu_);
    if (failure_) std::rethrow_exception(failure_);
  }

  // They count through the demo's own runner: what is theirs alone is what they parked.
  WorkerCounts stop() override {
    halt();
    check();
    WorkerCounts counts;
    for (const auto& w : workers_) counts.parked += w->stats().parked.load();
    return counts;
  }

 private:
  void halt() {
    for (auto& w : workers_) w->stop();
    for (auto& t : threads_)
      if (t.joinable()) t.join();
  }

  void record(std::exception_ptr e) {
    std::lock_guard lock(mu_);
    if (!failure_) failure_ = e;
  }

  std::vector<std::unique_ptr<runtime::Worker>> workers_;
  std::vector<std::thread> threads_;
  std::mutex mu_;  // guards failure_, set from the workers' threads
  std::exception_ptr failure_;
};

void check_options(const DemoOptions& o) {
  if (o.orders <= 0) throw InvalidArgument("--orders must be positive");
  if (o.processes <= 0) throw InvalidArgument("--processes must be positive");
  if (o.workers && *o.workers <= 0) throw InvalidArgument("--workers must be positive");
  if (o.processes > 1 && o.workers.value_or(1) != 1)
    throw InvalidArgument("--workers " + std::to_string(*o.workers) + " with --processes " + std::to_string(o.processes) +
                          ": each worker process runs one worker; --workers sets the threads of one (--processes 1)");
  if (o.concurrency <= 0) throw InvalidArgument("--concurrency must be positive");
}

// The workers' transport: worker processes need one they can share; the
// threads of one process share an in-process one unless told otherwise.
std::string transport_url(const Globals& g, const DemoOptions& o) {
  if (o.processes > 1) return shared_transport_url(g, o.processes);
  return g.transport_url.empty() ? std::string("memory:") : g.transport_url;
}

constexpr std::size_t kStartLanes = 32;

// One lane of start_orders: its share of the orders, one after another.
asio::awaitable<void> start_lane(Fleet& fleet, const std::vector<int>& ns,
                                 const std::function<std::string(int)>& order_id, std::size_t lane) {
  for (std::size_t i = lane; i < ns.size(); i += kStartLanes) {
    std::string id = order_id(ns[i]);
    try {
      co_await fleet.runner->create(std::string("order"), bj::object(), id);
    } catch (const UnknownDefinition&) {
      throw;
    } catch (const InvalidArgument&) {  // "already exists": a crashed run created it, its script goes again
    }
    co_await fleet.async_transport->async_publish(script(id, ns[i]), asio::use_awaitable);
  }
}

// Starts the orders `ns` and queues their scripts, many at a time on the
// fleet's loop, as a client service would.
void start_orders(Fleet& fleet, const std::vector<int>& ns, const std::function<std::string(int)>& order_id) {
  std::exception_ptr failure;
  for (std::size_t lane = 0; lane < std::min(kStartLanes, ns.size()); ++lane)
    asio::co_spawn(fleet.io, start_lane(fleet, ns, order_id, lane), [&](std::exception_ptr e) {
      if (e && !failure) failure = e;
    });
  fleet.io.restart();
  fleet.io.run();
  if (failure) std::rethrow_exception(failure);
}

std::unique_ptr<DemoWorkers> start_workers(const Globals& g, const DemoOptions& o, Fleet& fleet) {
  if (o.processes > 1)
    return std::make_unique<WorkerProcesses>(g, *fleet.transport_url, o.processes, o.concurrency, o.trace);
  return std::make_unique<WorkerThreads>(fleet, o.workers.value_or(kDefaultWorkers), o.concurrency);
}

}  // namespace

int demo(const Globals& g, const DemoOptions& o) {
  check_options(o);
  runtime::RunnerOptions options;
  options.trace = o.trace;
  options.on_kept = [](const std::string& line) { std::cerr << "harelctl demo: " << line << '\n'; };
  Fleet fleet(g, options, transport_url(g, o));
  ExecutionStore& store = *fleet.store;
  const std::string run = o.run_id.empty() ? random_run_id() : o.run_id;
  auto order_id = [&](int n) { return "order-" + run + "-" + std::to_string(n); };

  // One ledger per store counts completed orders across runs.
  if (!store.load("ledger")) {
    try {
      fleet.run(fleet.runner->create("ledger", {}, std::string("ledger")));
    } catch (const InvalidArgument&) {  // another demo created it meanwhile
    }
  }
  const auto ledger_count = [&] {
    const auto ledger = store.load("ledger");
    const auto* n = ledger ? ledger->context.if_contains("orders") : nullptr;
    return n && n->is_int64() ? n->as_int64() : 0;
  };
  const std::int64_t ledger_before = ledger_count();
  // Re-running a run id resumes it (after a crash, say): every step is
  // idempotent, but the ledger's count from before the resume is unknown.
  const bool resumed = store.load(order_id(0)).has_value();

  const auto started = std::chrono::steady_clock::now();
  const double cpu_before = cpu_seconds();
  const auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count(); };
  if (resumed) fleet.run(fleet.runner->relay_once());  // what the crashed run left between commit and ack

  // Create the orders and queue their events; the workers do the rest.
  std::map<std::string, int> outcomes;
  std::vector<int> open, fresh;
  for (int n = 0; n < o.orders; ++n) {
    const auto exe = resumed ? store.load(order_id(n)) : std::nullopt;
    if (exe && is_terminal(exe->status)) {
      ++outcomes[exe->outcome.value_or("?")];
      continue;
    }
    open.push_back(n);
    if (!exe)
      fresh.push_back(n);
    else
      fleet.transport->publish(script(order_id(n), n));  // after a crash, already applied ones are duplicates
  }
  start_orders(fleet, fresh, order_id);
  // A parked event would leave its order unfinished: stop instead of waiting for it.
  const std::int64_t parked_before = fleet.transport->backlog().parked;
  const auto check_parked = [&] {
    if (const std::int64_t parked = fleet.transport->backlog().parked - parked_before; parked > 0)
      throw Error("demo stopped: " + std::to_string(parked) + " events parked (see harelctl parked)");
  };
  const std::unique_ptr<DemoWorkers> workers = start_workers(g, o, fleet);
  // Worker threads count through this process's runner, so their counters show as they go.
  const bool counted_here = o.processes == 1;
  Progress progress(o.orders);
  int finished = o.orders - static_cast<int>(open.size());
  // Orders finish roughly in the order they started: look at the oldest open
  // ones only, so that watching costs the store a read or two per pass.
  std::size_t first_open = 0;
  while (first_open < open.size()) {
    workers->check();
    check_parked();
    for (; first_open < open.size(); ++first_open) {
      const auto exe = store.load(order_id(open[first_open]));
      if (!exe || !is_terminal(exe->status)) break;
      ++outcomes[exe->outcome.value_or("?")], ++finished;
    }
    const WorkerCounts so_far = counts_of(fleet.runner->stats());
    progress.show(finished, elapsed(), counted_here ? &so_far : nullptr);
    if (first_open < open.size()) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  // The ledger's OrderDone events are the last to land: wait for the queue to drain.
  while (fleet.transport->backlog().pending > 0) {
    workers->check();
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  // This process's runner counted what it did (creating the orders) and what
  // worker threads did through it; worker processes add what it could not see.
  const WorkerCounts from_workers = workers->stop();
  WorkerCounts counts = counts_of(fleet.runner->stats());
  counts += from_workers;
  const double seconds = elapsed();
  const double cpu = cpu_seconds() - cpu_before + counts.cpu_s;
  progress.show(finished, seconds, &counts, true);

  // Check what a user would: every order at its expected outcome, nothing stranded.
  std::vector<std::string> problems;
  std::int64_t expected_success = 0;
  for (int n = 0; n < o.orders; ++n) {
    const auto exe = store.load(order_id(n));
    const std::string want = expected_outcome(n);
    expected_success += want == "success";
    if (!exe || exe->outcome != want)
      problems.push_back(order_id(n) + " ended " + (exe && exe->outcome ? *exe->outcome : "unfinished") +
                         ", expected " + want);
  }
  const std::int64_t recorded = ledger_count() - ledger_before;
  if (!resumed && recorded != expected_success)
    problems.push_back("ledger recorded " + std::to_string(recorded) + " orders, expected exactly " +
                       std::to_string(expected_success));
  for (const auto& t : store.due_timers(32503680000.0))
    if (t.execution_id.rfind("order-" + run + "-", 0) == 0) problems.push_back("timer left: " + t.execution_id);
  if (counts.parked) problems.push_back(std::to_string(counts.parked) + " events parked (harelctl parked)");

  const double events = static_cast<double>(counts.events);
  const double per_s = seconds > 0 ? events / seconds : 0.0;
  const double cpu_us = events > 0 ? cpu / events * 1e6 : 0.0;
  const int workers_total = o.processes > 1 ? o.processes : o.workers.value_or(kDefaultWorkers);
  if (g.json) {
    bj::object out{{"run", run},
                   {"store", g.store_url},
                   {"transport", *fleet.transport_url},
                   {"orders", o.orders},
                   {"processes", o.processes},
                   {"workers", workers_total},
                   {"concurrency", o.concurrency},
                   {"outcomes", bj::object()}};
    for (const auto& [name, counter] : kWorkerCounters) out[name] = counts.*counter;
    out["ledger_recorded"] = recorded;
    out["resumed"] = resumed;
    out["elapsed_s"] = seconds;
    out["events_per_s"] = per_s;
    out["cpu_us_per_event"] = cpu_us;
    out["ok"] = problems.empty();
    for (const auto& [outcome, count] : outcomes) out["outcomes"].as_object()[outcome] = count;
    std::cout << compact_json(out) << '\n';
  } else {
    std::cout << "demo run " << run << ": " << o.orders << " orders on " << g.store_url << " via "
              << *fleet.transport_url << ", " << workers_total << (o.processes > 1 ? " worker processes" : " workers")
              << " x " << o.concurrency << " in flight\n  outcomes:";
    for (const auto& [outcome, count] : outcomes) std::cout << ' ' << outcome << ' ' << count;
    std::cout << "\n  events " << counts.events << " (duplicates skipped " << counts.duplicates
              << "), conflicts retried " << counts.conflicts_retried << ", parked " << counts.parked
              << "\n  outbox delivered " << counts.outbox_delivered << " (recovered " << counts.recovered
              << "), spawns created " << counts.spawns_created << ", timers fired " << counts.timers_fired
              << "\n  ledger recorded " << recorded << " orders"
              << (resumed ? " (resumed run: the ledger is checked only for fresh runs)" : "") << "\n  elapsed ";
    std::printf("%.2f s, %.0f events/s, %.0f us CPU per event\n", seconds, per_s, cpu_us);
    std::cout << "  inspect: harelctl --store " << g.store_url << " list --definition order | show " << order_id(0)
              << " | trace " << order_id(0) << '\n';
  }
  for (const auto& p : problems) std::cerr << "harelctl demo: " << p << '\n';
  return problems.empty() ? 0 : 1;
}

}  // namespace harelctl
