// The benchmark's output: an aligned table (with each async mode's share of
// the raw ceiling at the same concurrency, and the targets), and JSON.
//
// Every mode runs once per round, the modes of a round back to back, so a
// round's async-N and raw-N see the same server and machine. A row of the
// table is the median of its rounds, and "vs raw" the median of the rounds'
// own async-N ÷ raw-N ratios: drift between rounds (the server's JIT and
// tables, other work on a shared machine) cancels out of each ratio.
#pragma once

#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include <boost/json/object.hpp>

#include "measure.h"

namespace harel::bench {

// One workload and mode over all its rounds.
struct Row {
  Result median;  // each figure the median over the rounds (RSS: the peak); errors summed
  std::size_t rounds = 0;
  std::optional<double> share_of_raw;  // async rows with a raw twin: median of the per-round ratios
};

// Folds the runs into rows, in the order each workload and mode first ran.
std::vector<Row> summarize(const std::vector<Result>& runs);

void print_table(std::FILE* out, const std::vector<Row>& rows);

// The target checks of the issue, one line each (figures, not pass/fail tests).
void print_targets(std::FILE* out, const std::vector<Row>& rows);

// `config` describes the run (endpoint, ops, seed, ...); the table's rows go
// under "results", every round's own figures under "runs".
boost::json::object to_json(boost::json::object config, const std::vector<Row>& rows, const std::vector<Result>& runs);

}  // namespace harel::bench
