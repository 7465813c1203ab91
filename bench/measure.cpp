#include "measure.h"

#include <sys/resource.h>

#include <charconv>
#include <optional>
#include <stdexcept>
#include <utility>

#include "dynamodb/request_writer.h"
#include "wire.h"

namespace harel::bench {
namespace {

namespace bj = boost::json;
using Clock = std::chrono::steady_clock;

struct Usage {
  double cpu_seconds;
  double user_seconds;
  long voluntary_switches;
  long max_rss_kb;
};

Usage usage() {
  rusage r{};
  getrusage(RUSAGE_SELF, &r);
  const auto seconds = [](const timeval& t) { return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) * 1e-6; };
  return {seconds(r.ru_utime) + seconds(r.ru_stime), seconds(r.ru_utime), r.ru_nvcsw, r.ru_maxrss};
}

// The modes that take a concurrency ("async-16"), by name.
constexpr std::pair<std::string_view, Path> kConcurrentModes[] = {
    {"async", Path::Async}, {"raw", Path::Raw}, {"wire", Path::Wire}};

// The raw ceiling's requests: what the store sends for this run.
struct Captured {
  std::vector<CapturedCall> prologue;
  std::vector<std::vector<CapturedCall>> ops;
};

Captured capture(Workload& workload, Stores& stores, std::size_t ops) {
  Captured out;
  stores.capture->take();
  stores.capture->forwarding(true);
  workload.begin(*stores.capturing);
  out.prologue = stores.capture->take();
  stores.capture->forwarding(false);
  out.ops.reserve(ops);
  for (std::size_t i = 0; i < ops; ++i) {
    // The local answers carry no items, so a read workload's own check of
    // its result fails here; the requests, all that is kept, were sent.
    try {
      workload.op(*stores.capturing, i);
    } catch (const std::exception&) {
    }
    out.ops.push_back(stores.capture->take());
    if (out.ops.back().empty()) throw std::runtime_error("operation " + std::to_string(i) + " sent no request");
  }
  return out;
}

// The captured requests as they go on the wire, written beforehand.
struct Prewritten {
  std::vector<std::string> prologue;
  std::vector<std::vector<std::string>> ops;
};

Prewritten prewrite(const Captured& captured, const dynamodb::Settings& settings) {
  dynamodb::RequestWriter writer(settings, dynamodb::HttpClientOptions{}.user_agent);
  const auto write_all = [&](const std::vector<CapturedCall>& calls) {
    std::vector<std::string> out;
    for (const CapturedCall& call : calls) out.push_back(writer.write(call.operation, call.request));
    return out;
  };
  Prewritten out{write_all(captured.prologue), {}};
  out.ops.reserve(captured.ops.size());
  for (const auto& calls : captured.ops) out.ops.push_back(write_all(calls));
  return out;
}

// Sends `calls[k..]` one after another, as the store would, then completes.
void send_in_order(dynamodb::DynamoClient& client, const std::vector<CapturedCall>& calls, std::size_t k, Done done) {
  if (k == calls.size()) return done(nullptr);
  client.async_call(calls[k].operation, calls[k].request,
                    [&client, &calls, k, done = std::move(done)](std::exception_ptr e, bj::value) mutable {
                      if (e) return done(e);
                      send_in_order(client, calls, k + 1, std::move(done));
                    });
}

// Runs `start` once on the benchmark thread's loop and raises its failure.
void run_once(boost::asio::io_context& io, const std::function<void(Done)>& start) {
  std::exception_ptr error;
  start([&](std::exception_ptr e) { error = e; });
  io.restart();
  io.run();
  if (error) std::rethrow_exception(error);
}

// Opens the mode's connections before measuring: a pool that grows during
// the run would charge connection setup to the first operations.
void warm_up(Stores& stores, const Mode& mode) {
  const bj::object get{{"TableName", stores.prefix + "_executions"}, {"Key", {{"id", {{"S", "warm-up"}}}}}};
  if (mode.path == Path::Sync) {
    stores.client->call("GetItem", get);
    return;
  }
  Recorder recorder(mode.concurrency);
  run_concurrent(stores.io, mode.concurrency, mode.concurrency,
                 [&](std::size_t, Done done) {
                   stores.client->async_call("GetItem", get,
                                             [done = std::move(done)](std::exception_ptr e, bj::value) { done(e); });
                 },
                 recorder);
  recorder.rethrow_first();
}

}  // namespace

Mode Mode::parse(std::string_view text) {
  if (text == "sync") return {Path::Sync, 1};
  const std::size_t dash = text.find('-');
  const std::string_view kind = text.substr(0, dash);
  std::size_t n = 0;
  for (const auto& [name, path] : kConcurrentModes) {
    if (dash == std::string_view::npos || kind != name) continue;
    const std::string_view digits = text.substr(dash + 1);
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
    if (ec == std::errc() && end == digits.data() + digits.size() && n > 0) return {path, n};
  }
  throw std::invalid_argument("unknown mode '" + std::string(text) + "' (sync, async-N, raw-N or wire-N)");
}

std::string Mode::name() const {
  for (const auto& [name, p] : kConcurrentModes)
    if (p == path) return std::string(name) + "-" + std::to_string(concurrency);
  return "sync";
}

Result measure(Workload& workload, const Mode& mode, Stores& stores, DataGenerator& data, std::size_t ops,
               Progress& progress, std::string_view label) {
  workload.prepare(stores, data, ops, mode.concurrency);
  Captured captured;
  if (mode.path == Path::Raw || mode.path == Path::Wire) captured = capture(workload, stores, ops);
  Prewritten prewritten;
  std::optional<WireConnections> wire;
  if (mode.path == Path::Wire) {
    prewritten = prewrite(captured, stores.settings);
    wire.emplace(stores.io, stores.settings.endpoint, mode.concurrency);
  } else {
    warm_up(stores, mode);
  }

  Recorder recorder(ops, &progress);
  progress.begin(std::string(workload.name()) + "  " + (label.empty() ? mode.name() : std::string(label)), ops);
  const Usage u0 = usage();
  const auto t0 = Clock::now();
  switch (mode.path) {
    case Path::Sync:
      workload.begin(*stores.sync);
      run_sequential(ops, [&](std::size_t i) { workload.op(*stores.sync, i); }, recorder);
      break;
    case Path::Async:
      run_once(stores.io, [&](Done done) { workload.begin_async(*stores.async, std::move(done)); });
      run_concurrent(stores.io, ops, mode.concurrency,
                     [&](std::size_t i, Done done) { workload.op_async(*stores.async, i, std::move(done)); }, recorder);
      break;
    case Path::Raw:
      run_once(stores.io, [&](Done done) { send_in_order(*stores.client, captured.prologue, 0, std::move(done)); });
      run_concurrent(stores.io, ops, mode.concurrency,
                     [&](std::size_t i, Done done) { send_in_order(*stores.client, captured.ops[i], 0, std::move(done)); },
                     recorder);
      break;
    case Path::Wire:
      run_once(stores.io, [&](Done done) { wire->exchange(0, prewritten.prologue, std::move(done)); });
      run_concurrent(stores.io, ops, mode.concurrency,
                     [&](std::size_t i, Done done) {
                       // Worker w runs operations w, w + N, ...: one connection each.
                       wire->exchange(i % mode.concurrency, prewritten.ops[i], std::move(done));
                     },
                     recorder);
      break;
  }
  const double seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  const Usage u1 = usage();
  progress.end(recorder.done());

  Result r;
  r.workload = workload.name();
  r.mode = mode;
  r.ops = ops;
  r.errors = recorder.errors();
  r.first_error = recorder.first_error();
  r.seconds = seconds;
  r.ops_per_s = static_cast<double>(ops) / seconds;
  r.p50_us = recorder.quantile_ns(0.50) / 1e3;
  r.p99_us = recorder.quantile_ns(0.99) / 1e3;
  const auto per_op = [&](double total) { return total / static_cast<double>(ops); };
  r.cpu_us_per_op = per_op((u1.cpu_seconds - u0.cpu_seconds) * 1e6);
  r.user_us_per_op = per_op((u1.user_seconds - u0.user_seconds) * 1e6);
  r.wakeups_per_op = per_op(static_cast<double>(u1.voluntary_switches - u0.voluntary_switches));
  r.peak_rss_kb = u1.max_rss_kb;
  return r;
}

}  // namespace harel::bench
