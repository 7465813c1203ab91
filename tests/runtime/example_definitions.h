// The shipped example workflows (examples/order.json, ledger.json) as a
// runner's definition set, for the runner tests.
#pragma once

#include <fstream>
#include <memory>
#include <sstream>
#include <string>

#include "harel/runtime/runner.h"

namespace harel::runtime {

inline std::shared_ptr<const Definitions> example_definitions() {
  auto read = [](const std::string& name) {
    std::ifstream in(std::string(HAREL_EXAMPLES_DIR) + "/" + name);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  };
  auto defs = std::make_shared<Definitions>(std::make_shared<const ActionRegistry>(builtin_actions()));
  defs->add_json(read("order.json"));
  defs->add_json(read("ledger.json"));
  return defs;
}

}  // namespace harel::runtime
