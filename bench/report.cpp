#include "report.h"

#include <algorithm>
#include <optional>

namespace harel::bench {
namespace {

bool same_kind(const Result& a, const Result& b) {
  return a.workload == b.workload && a.mode.path == b.mode.path && a.mode.concurrency == b.mode.concurrency;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// The raw run of `async`'s workload and concurrency in the same round.
const Result* raw_twin(const std::vector<Result>& runs, const Result& async) {
  for (const Result& r : runs)
    if (r.workload == async.workload && r.mode.path == Path::Raw && r.mode.concurrency == async.mode.concurrency &&
        r.round == async.round)
      return &r;
  return nullptr;
}

const Row* find(const std::vector<Row>& rows, const std::string& workload, Path path, std::size_t c) {
  for (const Row& row : rows) {
    const Result& r = row.median;
    if (r.workload == workload && r.mode.path == path && r.mode.concurrency == c && r.errors == 0) return &row;
  }
  return nullptr;
}

std::vector<std::string> workloads_of(const std::vector<Row>& rows) {
  std::vector<std::string> names;
  for (const Row& row : rows)
    if (std::find(names.begin(), names.end(), row.median.workload) == names.end()) names.push_back(row.median.workload);
  return names;
}

boost::json::object to_json(const Result& r) {
  boost::json::object o{{"workload", r.workload},
                        {"mode", r.mode.name()},
                        {"concurrency", r.mode.concurrency},
                        {"ops", r.ops},
                        {"errors", r.errors},
                        {"seconds", r.seconds},
                        {"ops_per_s", r.ops_per_s},
                        {"p50_us", r.p50_us},
                        {"p99_us", r.p99_us},
                        {"cpu_us_per_op", r.cpu_us_per_op},
                        {"user_us_per_op", r.user_us_per_op},
                        {"wakeups_per_op", r.wakeups_per_op},
                        {"peak_rss_kb", r.peak_rss_kb}};
  if (r.errors) o["first_error"] = r.first_error;
  return o;
}

}  // namespace

std::vector<Row> summarize(const std::vector<Result>& runs) {
  std::vector<Row> rows;
  for (const Result& first : runs) {
    if (std::any_of(rows.begin(), rows.end(), [&](const Row& row) { return same_kind(row.median, first); })) continue;
    std::vector<const Result*> rounds;
    for (const Result& r : runs)
      if (same_kind(r, first)) rounds.push_back(&r);
    const auto median_of = [&](double Result::*figure) {
      std::vector<double> values;
      for (const Result* r : rounds) values.push_back(r->*figure);
      return median(std::move(values));
    };
    Row row;
    row.rounds = rounds.size();
    Result& m = row.median;
    m = first;
    for (double Result::*figure : {&Result::seconds, &Result::ops_per_s, &Result::p50_us, &Result::p99_us,
                                   &Result::cpu_us_per_op, &Result::user_us_per_op, &Result::wakeups_per_op})
      m.*figure = median_of(figure);
    m.errors = 0;
    for (const Result* r : rounds) {
      m.errors += r->errors;
      m.peak_rss_kb = std::max(m.peak_rss_kb, r->peak_rss_kb);
      if (m.first_error.empty()) m.first_error = r->first_error;
    }
    if (first.mode.path == Path::Async) {
      std::vector<double> ratios;
      for (const Result* r : rounds) {
        const Result* raw = raw_twin(runs, *r);
        if (raw && !raw->errors && !r->errors) ratios.push_back(r->ops_per_s / raw->ops_per_s);
      }
      if (!ratios.empty()) row.share_of_raw = median(std::move(ratios));
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

void print_table(std::FILE* out, const std::vector<Row>& rows) {
  std::fprintf(out, "| %-14s | %-9s | %9s | %9s | %9s | %10s | %9s | %8s | %8s | %7s | %6s |\n", "workload", "mode",
               "ops/s", "p50 ms", "p99 ms", "CPU us/op", "user us", "wakeups", "RSS MB", "vs raw", "errors");
  const auto rule = [](int width) { return std::string(width, '-').append(":"); };
  std::fprintf(out, "|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|\n", std::string(16, '-').c_str(), std::string(11, '-').c_str(),
               rule(10).c_str(), rule(10).c_str(), rule(10).c_str(), rule(11).c_str(), rule(10).c_str(),
               rule(9).c_str(), rule(9).c_str(), rule(8).c_str(), rule(7).c_str());
  for (const Row& row : rows) {
    const Result& r = row.median;
    char share[16] = "";
    if (row.share_of_raw) std::snprintf(share, sizeof share, "%.0f %%", *row.share_of_raw * 100);
    std::fprintf(out, "| %-14s | %-9s | %9.0f | %9.2f | %9.2f | %10.1f | %9.1f | %8.2f | %8.1f | %7s | %6zu |\n",
                 r.workload.c_str(), r.mode.name().c_str(), r.ops_per_s, r.p50_us / 1e3, r.p99_us / 1e3,
                 r.cpu_us_per_op, r.user_us_per_op, r.wakeups_per_op, static_cast<double>(r.peak_rss_kb) / 1024,
                 share, r.errors);
  }
  for (const Row& row : rows) {
    const Result& r = row.median;
    if (r.errors)
      std::fprintf(out, "%s %s: %zu errors in %zu rounds, first: %s\n", r.workload.c_str(), r.mode.name().c_str(),
                   r.errors, row.rounds, r.first_error.c_str());
  }
}

void print_targets(std::FILE* out, const std::vector<Row>& rows) {
  double worst_cpu = 0;
  std::string worst_at;
  for (const Row& row : rows) {
    const Result& r = row.median;
    const bool store_mode = r.mode.path == Path::Sync || r.mode.path == Path::Async;
    if (store_mode && r.cpu_us_per_op > worst_cpu) {
      worst_cpu = r.cpu_us_per_op;
      worst_at = r.workload + " " + r.mode.name();
    }
  }
  std::fprintf(out, "client CPU per store operation <= 50 us: worst %.1f us (%s)\n", worst_cpu, worst_at.c_str());
  for (const std::string& w : workloads_of(rows)) {
    const Row* async64 = find(rows, w, Path::Async, 64);
    std::fprintf(out, "%-14s", w.c_str());
    if (async64 && async64->share_of_raw)
      std::fprintf(out, "  async-64 = %3.0f %% of raw-64 (>= 90 %%)", *async64->share_of_raw * 100);
    const Row* async1 = find(rows, w, Path::Async, 1);
    const Row* async16 = find(rows, w, Path::Async, 16);
    if (async1 && async16 && async64) {
      const Result* a1 = &async1->median;
      const Result* a16 = &async16->median;
      const Result* a64 = &async64->median;
      const char* trend = a1->ops_per_s >= a16->ops_per_s ? "does not grow"
                          : a16->ops_per_s < a64->ops_per_s ? "grows"
                          : a64->ops_per_s >= 0.95 * a16->ops_per_s ? "grows to 16, flat to 64"
                                                                     : "grows to 16, drops at 64";
      std::fprintf(out, "  async 1 -> 16 -> 64: %.0f -> %.0f -> %.0f ops/s (%s)", a1->ops_per_s, a16->ops_per_s,
                   a64->ops_per_s, trend);
    }
    std::fprintf(out, "\n");
  }
}

boost::json::object to_json(boost::json::object config, const std::vector<Row>& rows, const std::vector<Result>& runs) {
  boost::json::array table, rounds;
  for (const Row& row : rows) {
    boost::json::object o = to_json(row.median);
    o["rounds"] = row.rounds;
    if (row.share_of_raw) o["share_of_raw"] = *row.share_of_raw;
    table.push_back(std::move(o));
  }
  for (const Result& r : runs) {
    boost::json::object o = to_json(r);
    o["round"] = r.round;
    rounds.push_back(std::move(o));
  }
  config["results"] = std::move(table);
  config["runs"] = std::move(rounds);
  return config;
}

}  // namespace harel::bench
