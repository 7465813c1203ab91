// The runtime commands: create, send, relay, sweep, worker, parked, requeue.

#include <pthread.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <iostream>
#include <thread>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/json/parse.hpp>

#include "commands.h"
#include "fleet.h"
#include "harel/errors.h"
#include "harel/model/codec.h"
#include "harel/runtime/runner.h"
#include "harel/runtime/worker.h"
#include "harel/transport/open.h"
#include "output.h"

namespace harelctl {
namespace asio = boost::asio;
namespace bj = boost::json;
using namespace harel;

namespace {

bj::object parse_json_option(const std::string& text, const char* option) {
  try {
    return parse_object(text, option);
  } catch (const DecodeError& e) {
    throw InvalidArgument(std::string(option) + ": " + e.what());
  }
}

const char* outcome_name(runtime::ProcessOutcome o) {
  switch (o) {
    case runtime::ProcessOutcome::Handled: return "handled";
    case runtime::ProcessOutcome::Unhandled: return "unhandled";
    case runtime::ProcessOutcome::Duplicate: return "duplicate";
    case runtime::ProcessOutcome::NotFound: return "not found";
  }
  return "?";
}

runtime::RunnerOptions runner_options(bool trace) {
  runtime::RunnerOptions options;
  options.trace = trace;
  options.on_kept = [](const std::string& line) { std::cerr << "harelctl: " << line << '\n'; };
  return options;
}

// Runs `pass` once, or with --follow until killed, idling briefly when it found nothing.
template <class Pass>
int loop(const Globals& g, const LoopOptions& o, const char* what, Pass&& pass) {
  Fleet fleet(g, runner_options(o.trace), effective_transport_url(g));
  do {
    const std::int64_t n = fleet.run(pass(*fleet.runner));
    if (g.json)
      std::cout << compact_json(bj::object{{what, n}}) << '\n';
    else if (n || !o.follow)
      std::cout << what << ": " << n << '\n';
    if (o.follow && n == 0) std::this_thread::sleep_for(std::chrono::milliseconds(200));
  } while (o.follow);
  return 0;
}

std::unique_ptr<Transport> required_transport(const Globals& g, const std::string& command) {
  const auto url = effective_transport_url(g);
  if (!url) throw no_transport(g, command);
  return open_transport(*url);
}

}  // namespace

int create(const Globals& g, const CreateOptions& o) {
  bj::object context = parse_json_option(o.context_json, "--context");
  Fleet fleet(g, runner_options(false), effective_transport_url(g));
  const Execution exe = fleet.run(fleet.runner->create(o.definition_id, std::move(context), o.id));
  if (g.json)
    std::cout << to_json(exe) << '\n';
  else
    std::cout << "created " << exe.id << " (" << exe.definition_id << ", " << to_string(exe.status) << " in "
              << exe.active_path.value_or("-") << ", version " << exe.version << ")\n";
  return 0;
}

int send(const Globals& g, const SendOptions& o) {
  Event event = runtime::make_event(o.kind, parse_json_option(o.data_json, "--data"));
  if (o.event_id) event.id = *o.event_id;
  if (event.kind.empty()) throw InvalidArgument("event kind must not be empty");
  Fleet fleet(g, runner_options(false), effective_transport_url(g));
  if (!fleet.store->load(o.id)) throw InvalidArgument("no execution '" + o.id + "' in " + g.store_url);
  std::string outcome;
  if (fleet.transport) {
    fleet.transport->publish(o.id, event);
    outcome = "queued on " + *fleet.transport_url;
  } else {
    outcome = outcome_name(fleet.run(fleet.runner->process(o.id, event)));
  }
  if (g.json)
    std::cout << compact_json(bj::object{{"event_id", event.id}, {"outcome", outcome}}) << '\n';
  else
    std::cout << event.kind << " (" << event.id << ") → " << o.id << ": " << outcome << '\n';
  return 0;
}

int relay(const Globals& g, const LoopOptions& o) {
  return loop(g, o, "relayed", [](runtime::AsyncRunner& r) { return r.relay_once(); });
}

int sweep(const Globals& g, const LoopOptions& o) {
  return loop(g, o, "timers fired", [](runtime::AsyncRunner& r) { return r.sweep_once(); });
}

int worker(const Globals& g, const WorkerCommandOptions& o) {
  const auto url = effective_transport_url(g);
  if (!url) throw no_transport(g, "harelctl worker");
  // SIGINT / SIGTERM wait (blocked) until the signal set below is listening,
  // so a worker stopped while it is still starting stops gracefully too. The
  // Fleet's threads start with them blocked and leave them to this one.
  sigset_t stop_signals, previous;
  ::sigemptyset(&stop_signals);
  ::sigaddset(&stop_signals, SIGINT);
  ::sigaddset(&stop_signals, SIGTERM);
  ::pthread_sigmask(SIG_BLOCK, &stop_signals, &previous);
  Fleet fleet(g, runner_options(o.trace), url);
  runtime::WorkerOptions options;
  options.concurrency = o.concurrency;
  options.max_attempts = o.max_attempts;
  options.once = o.once;
  options.visibility = std::chrono::milliseconds(static_cast<std::int64_t>(o.visibility_seconds * 1000));
  options.recovery_grace = std::chrono::milliseconds(static_cast<std::int64_t>(o.grace_seconds * 1000));
  options.on_error = [](const std::string& line) { std::cerr << "harelctl worker: " << line << '\n'; };
  runtime::Worker w(*fleet.runner, *fleet.async_store, *fleet.async_transport, options);

  asio::signal_set signals(fleet.io, SIGINT, SIGTERM);
  signals.async_wait([&](const boost::system::error_code& ec, int) {
    if (!ec) w.stop();
  });
  ::pthread_sigmask(SIG_SETMASK, &previous, nullptr);
  // A status line every few seconds: throughput, in flight, conflicts, parked, lag.
  asio::steady_timer status_timer(fleet.io);
  bool running = true;
  auto status = [&]() -> asio::awaitable<void> {
    std::int64_t last_events = 0;
    while (running) {
      status_timer.expires_after(std::chrono::seconds(o.status_seconds));
      co_await status_timer.async_wait(asio::as_tuple(asio::use_awaitable));
      if (!running) break;
      const auto& s = fleet.runner->stats();
      const TransportBacklog backlog = co_await fleet.async_transport->async_backlog(asio::use_awaitable);
      const std::int64_t events = s.events.load();
      std::string lag = std::to_string(backlog.pending) + " pending";
      if (backlog.oldest_age) lag += ", oldest " + std::to_string(backlog.oldest_age->count()) + " ms";
      std::fprintf(stderr, "worker %s: %.1f events/s, %lld in flight, %lld conflicts, %lld parked, lag %s\n",
                   w.id().c_str(), static_cast<double>(events - last_events) / o.status_seconds,
                   static_cast<long long>(w.stats().in_flight.load()), static_cast<long long>(s.conflicts_retried.load()),
                   static_cast<long long>(backlog.parked), lag.c_str());
      last_events = events;
    }
  };
  if (!o.once && o.status_seconds > 0) asio::co_spawn(fleet.io, status(), asio::detached);

  const auto started = std::chrono::steady_clock::now();
  const double cpu_before = cpu_seconds();
  fleet.run([&]() -> asio::awaitable<int> {
    std::exception_ptr failure;
    try {
      co_await w.run();
    } catch (...) {
      failure = std::current_exception();
    }
    // The signal wait and the status line would keep the loop running.
    running = false;
    signals.cancel();
    status_timer.cancel();
    if (failure) std::rethrow_exception(failure);
    co_return 0;
  }());
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  const auto& s = fleet.runner->stats();
  const auto& ws = w.stats();
  if (g.json) {
    std::cout << compact_json(bj::object{{"worker", w.id()},
                                         {"events", s.events.load()},
                                         {"duplicates", s.duplicates.load()},
                                         {"conflicts_retried", s.conflicts_retried.load()},
                                         {"acked", ws.acked.load()},
                                         {"retried", ws.retried.load()},
                                         {"deferred", ws.deferred.load()},
                                         {"parked", ws.parked.load()},
                                         {"outbox_delivered", s.outbox_delivered.load()},
                                         {"recovered", s.recovered.load()},
                                         {"spawns_created", s.spawns_created.load()},
                                         {"timers_fired", s.timers_fired.load()},
                                         {"elapsed_s", elapsed},
                                         {"cpu_s", cpu_seconds() - cpu_before}})
              << '\n';
  } else {
    std::cout << "worker " << w.id() << " stopped: " << s.events.load() << " events (" << s.duplicates.load()
              << " duplicates), " << ws.retried.load() << " retried, " << ws.deferred.load() << " deferred, "
              << ws.parked.load() << " parked, " << s.recovered.load() << " rows recovered, " << s.timers_fired.load()
              << " timers fired\n";
  }
  return 0;
}

int parked(const Globals& g) {
  const auto transport = required_transport(g, "harelctl parked");
  const auto items = transport->parked();
  if (g.json) {
    bj::array arr;
    for (const auto& p : items)
      arr.push_back(bj::object{{"id", p.id},
                               {"group_id", p.group_id},
                               {"event", bj::parse(to_json(p.event))},
                               {"attempts", p.attempts},
                               {"last_error", p.last_error}});
    std::cout << compact_json(arr) << '\n';
    return 0;
  }
  print_parked(items, std::cout);
  return 0;
}

int requeue(const Globals& g, const RequeueOptions& o) {
  if (o.all == o.id.has_value()) throw InvalidArgument("requeue: name one parked message id, or --all");
  const auto transport = required_transport(g, "harelctl requeue");
  const std::int64_t n = transport->requeue(o.all ? std::nullopt : std::optional<std::string_view>(*o.id));
  if (!o.all && n == 0) throw InvalidArgument("no parked message '" + *o.id + "'");
  if (g.json)
    std::cout << compact_json(bj::object{{"requeued", n}}) << '\n';
  else
    std::cout << "requeued: " << n << '\n';
  return 0;
}

void print_parked(const std::vector<ParkedMessage>& items, std::ostream& out) {
  Table t({"PARKED", "EXECUTION", "EVENT", "KIND", "ATTEMPTS", "LAST ERROR"});
  for (const auto& p : items)
    t.add({p.id, p.group_id, p.event.id, p.event.kind, std::to_string(p.attempts), p.last_error});
  t.print(out);
}

}  // namespace harelctl
