#include "demo.h"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <map>
#include <random>
#include <thread>

#include "harel/errors.h"
#include "harel/store/open.h"
#include "output.h"
#include "runtime_setup.h"

namespace harelctl {
namespace bj = boost::json;
using namespace harel;
using runtime::DurableRunner;

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

void drive_order(DurableRunner& runner, ExecutionStore& store, const std::string& id, int n) {
  if (!store.load(id)) {
    try {
      runner.create("order", {}, id);
    } catch (const InvalidArgument&) {  // created by an earlier, interrupted run
    }
  }
  for (int item = 0; item <= n % 3; ++item)
    runner.process(id, scripted(id, "add-" + std::to_string(item), "AddItem"));
  if (n % 10 == 9)
    runner.process(id, scripted(id, "cancel", "Cancel"));
  else
    runner.process(id, scripted(id, "pay", "Pay", {{"method", n % 10 == 8 ? "voucher" : "card"}}));
}

std::string random_run_id() {
  std::mt19937 rng{std::random_device{}()};
  char buf[9];
  std::snprintf(buf, sizeof buf, "%08x", static_cast<unsigned>(rng()));
  return buf;
}

class Progress {
 public:
  Progress(int total, const runtime::RunnerStats& stats) : total_(total), stats_(stats), tty_(::isatty(2) != 0) {}

  void show(int done, double elapsed, bool final = false) {
    const auto events = stats_.events.load();
    if (!tty_ && !final && elapsed - last_line_ < 2.0) return;
    last_line_ = elapsed;
    constexpr int kWidth = 30;
    const int filled = total_ ? done * kWidth / total_ : kWidth;
    std::string bar(static_cast<std::size_t>(filled), '#');
    bar.append(static_cast<std::size_t>(kWidth - filled), '.');
    std::fprintf(stderr, "%s[%s] %d/%d orders  %lld events  %lld conflicts retried  %.0f events/s%s",
                 tty_ ? "\r" : "", bar.c_str(), done, total_, static_cast<long long>(events),
                 static_cast<long long>(stats_.conflicts_retried.load()), elapsed > 0 ? static_cast<double>(events) / elapsed : 0.0,
                 tty_ && !final ? "" : "\n");
    std::fflush(stderr);
  }

 private:
  int total_;
  const runtime::RunnerStats& stats_;
  bool tty_;
  double last_line_ = -10;
};

}  // namespace

int demo(const Globals& g, const DemoOptions& o) {
  if (o.orders <= 0) throw InvalidArgument("--orders must be positive");
  if (o.workers <= 0) throw InvalidArgument("--workers must be positive");
  auto store = open_store(g.store_url);
  runtime::RunnerOptions options;
  options.trace = o.trace;
  DurableRunner runner(*store, load_definitions(g.definitions_dir), options);
  const std::string run = o.run_id.empty() ? random_run_id() : o.run_id;
  auto order_id = [&](int n) { return "order-" + run + "-" + std::to_string(n); };

  // One ledger per store counts completed orders across runs.
  if (!store->load("ledger")) {
    try {
      runner.create("ledger", {}, "ledger");
    } catch (const InvalidArgument&) {  // another demo created it meanwhile
    }
  }
  const auto ledger_count = [&] {
    const auto ledger = store->load("ledger");
    const auto* n = ledger ? ledger->context.if_contains("orders") : nullptr;
    return n && n->is_int64() ? n->as_int64() : 0;
  };
  const std::int64_t ledger_before = ledger_count();
  // Re-running a run id resumes it (after a crash, say): every step is
  // idempotent, but the ledger's count from before the resume is unknown.
  const bool resumed = store->load(order_id(0)).has_value();

  const auto started = std::chrono::steady_clock::now();
  const auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count(); };
  std::atomic<int> finished{0};
  std::atomic<bool> failed{false};
  std::string failure;
  std::mutex failure_mu;
  std::map<std::string, int> outcomes;  // written by each worker under failure_mu

  std::vector<std::thread> workers;
  for (int w = 0; w < o.workers; ++w) {
    workers.emplace_back([&, w] {
      try {
        std::vector<int> mine;
        for (int n = w; n < o.orders; n += o.workers) {
          drive_order(runner, *store, order_id(n), n);
          mine.push_back(n);
        }
        // Every worker also relays and sweeps: competing relays are the normal
        // case in production, and dedupe keeps their work exactly-once.
        while (!failed) {
          const auto moved = runner.relay_once() + runner.sweep_once();
          std::vector<int> open;
          for (int n : mine) {
            const auto exe = store->load(order_id(n));
            if (exe && is_terminal(exe->status)) {
              std::lock_guard lock(failure_mu);
              ++outcomes[exe->outcome.value_or("?")];
              ++finished;
            } else {
              open.push_back(n);
            }
          }
          mine.swap(open);
          if (mine.empty() && finished == o.orders && moved == 0) break;
          if (moved == 0) std::this_thread::sleep_for(std::chrono::milliseconds(10));
        }
      } catch (const std::exception& e) {
        std::lock_guard lock(failure_mu);
        failed = true;
        failure = e.what();
      }
    });
  }
  Progress progress(o.orders, runner.stats());
  while (finished < o.orders && !failed) {
    progress.show(finished, elapsed());
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  for (auto& t : workers) t.join();
  // A last pass, so the ledger has every OrderDone before it is checked.
  while (runner.relay_once() + runner.sweep_once() > 0) {
  }
  const double seconds = elapsed();
  progress.show(finished, seconds, true);
  if (failed) throw Error("demo stopped: " + failure);

  // Check what a user would: every order at its expected outcome, nothing stranded.
  std::vector<std::string> problems;
  std::int64_t expected_success = 0;
  for (int n = 0; n < o.orders; ++n) {
    const auto exe = store->load(order_id(n));
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
  for (const auto& t : store->due_timers(32503680000.0))
    if (t.execution_id.rfind("order-" + run + "-", 0) == 0) problems.push_back("timer left: " + t.execution_id);

  const auto& s = runner.stats();
  if (g.json) {
    bj::object out{{"run", run},
                   {"store", g.store_url},
                   {"orders", o.orders},
                   {"outcomes", bj::object()},
                   {"events", s.events.load()},
                   {"duplicates", s.duplicates.load()},
                   {"conflicts_retried", s.conflicts_retried.load()},
                   {"outbox_delivered", s.outbox_delivered.load()},
                   {"spawns_created", s.spawns_created.load()},
                   {"timers_fired", s.timers_fired.load()},
                   {"ledger_recorded", recorded},
                   {"resumed", resumed},
                   {"elapsed_s", seconds},
                   {"events_per_s", seconds > 0 ? static_cast<double>(s.events.load()) / seconds : 0.0},
                   {"ok", problems.empty()}};
    for (const auto& [outcome, count] : outcomes) out["outcomes"].as_object()[outcome] = count;
    std::cout << compact_json(out) << '\n';
  } else {
    std::cout << "demo run " << run << ": " << o.orders << " orders on " << g.store_url << " with " << o.workers
              << " workers\n  outcomes:";
    for (const auto& [outcome, count] : outcomes) std::cout << ' ' << outcome << ' ' << count;
    std::cout << "\n  events " << s.events.load() << " (duplicates skipped " << s.duplicates.load()
              << "), conflicts retried " << s.conflicts_retried.load() << "\n  outbox delivered "
              << s.outbox_delivered.load() << ", spawns created " << s.spawns_created.load() << ", timers fired "
              << s.timers_fired.load() << "\n  ledger recorded " << recorded << " orders"
              << (resumed ? " (resumed run: the ledger is checked only for fresh runs)" : "") << "\n  elapsed ";
    std::printf("%.2f s, %.0f events/s\n", seconds, seconds > 0 ? static_cast<double>(s.events.load()) / seconds : 0.0);
    std::cout << "  inspect: harelctl --store " << g.store_url << " list --definition order | show " << order_id(0)
              << " | trace " << order_id(0) << '\n';
  }
  for (const auto& p : problems) std::cerr << "harelctl demo: " << p << '\n';
  return problems.empty() ? 0 : 1;
}

}  // namespace harelctl
