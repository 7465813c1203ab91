// harel_bench: the DynamoDB stores against any DynamoDB endpoint.
//
// For each workload (its own table prefix and data) and mode it measures
// ops/s, p50/p99 latency, client CPU per operation and peak RSS, and compares
// the async store with a raw ceiling: the very requests the store sends,
// captured beforehand, sent by the bare HTTP client at the same concurrency
// on the same single thread. Under both lies the transport floor (wire.h):
// the same requests, prewritten, on plain sockets. Every mode runs once per
// round (--rounds); the table shows medians, and each async-N ÷ raw-N ratio
// is taken within a round (report.h says why). Without --endpoint it starts
// DynamoDB Local (scripts/install-deps.sh --test installs it) on a free
// loopback port.
//
// A driver of its own rather than Google Benchmark: the runs are fixed
// operation counts with many operations in flight on one event loop, and
// what is reported (CPU per operation from getrusage, share of the raw
// ceiling) does not fit its per-iteration model.
#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <boost/json/serialize.hpp>

#include "harel/dynamodb/config.h"
#include "measure.h"
#include "report.h"
#include "support/local_server.h"

namespace {

std::vector<std::string> split(const std::string& list) {
  std::vector<std::string> out;
  std::stringstream in(list);
  for (std::string item; std::getline(in, item, ',');)
    if (!item.empty()) out.push_back(item);
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace harel::bench;
  CLI::App app("harel_bench: DynamoDBStore / AsyncDynamoDBStore against a DynamoDB endpoint");
  std::string endpoint;
  std::size_t ops = 1000;
  std::size_t rounds = 3;
  std::string workloads = "insert,update,load,load_for_event,list,relay";
  // Each async mode beside its raw ceiling (the two compared run back to
  // back), and the transport floor under both.
  std::string modes = "sync,async-1,raw-1,wire-1,async-16,raw-16,wire-16,async-64,raw-64,wire-64";
  std::size_t warmup = 500;
  std::uint64_t seed = 1;
  std::size_t list_page = 100;
  std::string json_path;
  app.add_option("--endpoint", endpoint, "DynamoDB endpoint URL (default: start DynamoDB Local)");
  app.add_option("--ops", ops, "operations per workload and mode")->capture_default_str()->check(CLI::PositiveNumber);
  app.add_option("--rounds", rounds, "times every mode runs, the modes of a round back to back (the table: medians)")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  app.add_option("--workloads", workloads, "comma-separated: " + workloads)->capture_default_str();
  app.add_option("--modes", modes, "comma-separated: sync, async-N, raw-N, wire-N")->capture_default_str();
  app.add_option("--warmup", warmup, "unmeasured async-16 operations per workload first (server JIT, caches)")
      ->capture_default_str();
  app.add_option("--seed", seed, "seed of the generated data")->capture_default_str();
  app.add_option("--list-page", list_page, "executions per list page")->capture_default_str()->check(CLI::PositiveNumber);
  app.add_option("--json", json_path, "also write the results as JSON to this file");
  CLI11_PARSE(app, argc, argv);

  try {
    std::vector<std::unique_ptr<Workload>> chosen;
    for (const std::string& name : split(workloads)) chosen.push_back(make_workload(name, list_page));
    std::vector<Mode> chosen_modes;
    std::size_t max_concurrency = 1;
    for (const std::string& name : split(modes)) {
      chosen_modes.push_back(Mode::parse(name));
      max_concurrency = std::max(max_concurrency, chosen_modes.back().concurrency);
    }

    std::unique_ptr<harel::testing::LocalServer> local;
    if (endpoint.empty()) {
      std::fprintf(stderr, "starting DynamoDB Local...\n");
      local = harel::testing::start_dynamodb_local();
      endpoint = local->url();
    }
    const auto settings = harel::dynamodb::resolve_settings({endpoint, std::nullopt, std::nullopt, std::nullopt});
    std::fprintf(stderr, "endpoint %s, %zu ops per run, %zu rounds\n", endpoint.c_str(), ops, rounds);

    boost::asio::io_context io(1);  // run by this thread only
    DataGenerator data(seed);
    Progress progress;
    std::vector<Result> runs;
    for (auto& workload : chosen) {
      const std::string prefix = "hb_" + std::to_string(getpid()) + "_" + std::string(workload->name());
      auto stores = open_stores(io, settings, prefix, std::max<std::size_t>(max_concurrency, 16));
      // DynamoDB Local is a JVM: until its JIT has compiled a workload's
      // paths, whichever mode runs first would be measured slower.
      if (warmup) measure(*workload, {Path::Async, 16}, *stores, data, warmup, progress, "warm-up");
      for (std::size_t round = 1; round <= rounds; ++round) {
        for (const Mode& mode : chosen_modes) {
          const std::string label = mode.name() + (rounds > 1 ? "  round " + std::to_string(round) : "");
          runs.push_back(measure(*workload, mode, *stores, data, ops, progress, label));
          runs.back().round = round;
        }
      }
      drop_tables(*stores);
    }

    const std::vector<Row> rows = summarize(runs);
    std::printf("\n");
    print_table(stdout, rows);
    std::printf("\n");
    print_targets(stdout, rows);
    if (!json_path.empty()) {
      boost::json::object config{{"endpoint", endpoint},
                                 {"ops", ops},
                                 {"rounds", rounds},
                                 {"seed", seed},
                                 {"list_page", list_page},
                                 {"cpus", sysconf(_SC_NPROCESSORS_ONLN)}};
      std::ofstream(json_path) << boost::json::serialize(to_json(std::move(config), rows, runs)) << "\n";
    }
    std::size_t errors = 0;
    for (const Result& r : runs) errors += r.errors;
    return errors ? 1 : 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "harel_bench: %s\n", e.what());
    return 2;
  }
}
