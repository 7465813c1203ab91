#include "report.h"

#include <algorithm>
#include <optional>

namespace harel::bench {
namespace {

const Result* find(const std::vector<Result>& results, const std::string& workload, Path path, std::size_t c) {
  for (const Result& r : results)
    if (r.workload == workload && r.mode.path == path && r.mode.concurrency == c && r.errors == 0) return &r;
  return nullptr;
}

// An async run's ops/s as a share of the raw ceiling at its concurrency.
std::optional<double> share_of_raw(const std::vector<Result>& results, const Result& r) {
  if (r.mode.path != Path::Async || r.errors) return std::nullopt;
  const Result* raw = find(results, r.workload, Path::Raw, r.mode.concurrency);
  if (!raw) return std::nullopt;
  return r.ops_per_s / raw->ops_per_s;
}

std::vector<std::string> workloads_of(const std::vector<Result>& results) {
  std::vector<std::string> names;
  for (const Result& r : results)
    if (std::find(names.begin(), names.end(), r.workload) == names.end()) names.push_back(r.workload);
  return names;
}

}  // namespace

void print_table(std::FILE* out, const std::vector<Result>& results) {
  std::fprintf(out, "| %-14s | %-9s | %9s | %9s | %9s | %10s | %9s | %8s | %8s | %7s | %6s |\n", "workload", "mode",
               "ops/s", "p50 ms", "p99 ms", "CPU us/op", "user us", "wakeups", "RSS MB", "vs raw", "errors");
  const auto rule = [](int width) { return std::string(width, '-').append(":"); };
  std::fprintf(out, "|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|\n", std::string(16, '-').c_str(), std::string(11, '-').c_str(),
               rule(10).c_str(), rule(10).c_str(), rule(10).c_str(), rule(11).c_str(), rule(10).c_str(),
               rule(9).c_str(), rule(9).c_str(), rule(8).c_str(), rule(7).c_str());
  for (const Result& r : results) {
    char share[16] = "";
    if (auto s = share_of_raw(results, r)) std::snprintf(share, sizeof share, "%.0f %%", *s * 100);
    std::fprintf(out, "| %-14s | %-9s | %9.0f | %9.2f | %9.2f | %10.1f | %9.1f | %8.2f | %8.1f | %7s | %6zu |\n",
                 r.workload.c_str(), r.mode.name().c_str(), r.ops_per_s, r.p50_us / 1e3, r.p99_us / 1e3,
                 r.cpu_us_per_op, r.user_us_per_op, r.wakeups_per_op, static_cast<double>(r.peak_rss_kb) / 1024,
                 share, r.errors);
  }
  for (const Result& r : results)
    if (r.errors) std::fprintf(out, "%s %s: %zu errors, first: %s\n", r.workload.c_str(), r.mode.name().c_str(), r.errors,
                               r.first_error.c_str());
}

void print_targets(std::FILE* out, const std::vector<Result>& results) {
  double worst_cpu = 0;
  std::string worst_at;
  for (const Result& r : results)
    if (r.mode.path != Path::Raw && r.cpu_us_per_op > worst_cpu) {
      worst_cpu = r.cpu_us_per_op;
      worst_at = r.workload + " " + r.mode.name();
    }
  std::fprintf(out, "client CPU per store operation <= 50 us: worst %.1f us (%s)\n", worst_cpu, worst_at.c_str());
  for (const std::string& w : workloads_of(results)) {
    const Result* a1 = find(results, w, Path::Async, 1);
    const Result* a16 = find(results, w, Path::Async, 16);
    const Result* a64 = find(results, w, Path::Async, 64);
    const Result* r64 = find(results, w, Path::Raw, 64);
    std::fprintf(out, "%-14s", w.c_str());
    if (a64 && r64) std::fprintf(out, "  async-64 = %3.0f %% of raw-64 (>= 90 %%)", a64->ops_per_s / r64->ops_per_s * 100);
    if (a1 && a16 && a64) {
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

boost::json::object to_json(boost::json::object config, const std::vector<Result>& results) {
  boost::json::array rows;
  for (const Result& r : results) {
    boost::json::object row{{"workload", r.workload},
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
    if (auto s = share_of_raw(results, r)) row["share_of_raw"] = *s;
    if (r.errors) row["first_error"] = r.first_error;
    rows.push_back(std::move(row));
  }
  config["results"] = std::move(rows);
  return config;
}

}  // namespace harel::bench
