// The benchmark's output: an aligned table (with each async mode's share of
// the raw ceiling at the same concurrency, and the targets), and JSON.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include <boost/json/object.hpp>

#include "measure.h"

namespace harel::bench {

void print_table(std::FILE* out, const std::vector<Result>& results);

// The target checks of the issue, one line each (figures, not pass/fail tests).
void print_targets(std::FILE* out, const std::vector<Result>& results);

// `config` describes the run (endpoint, ops, seed, ...); results go under "results".
boost::json::object to_json(boost::json::object config, const std::vector<Result>& results);

}  // namespace harel::bench
