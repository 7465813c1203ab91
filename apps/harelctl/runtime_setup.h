// The runtime harelctl drives: the built-in actions, the shipped example
// definitions, and any definitions the user adds with --definitions DIR.
#pragma once

#include <memory>
#include <string>

#include "harel/runtime/runner.h"

namespace harelctl {

// The examples (order, ledger) plus every *.json file in `dir` (if not empty),
// which may replace them. InvalidArgument names a file that does not load.
std::shared_ptr<const harel::runtime::Definitions> load_definitions(const std::string& dir);

}  // namespace harelctl
