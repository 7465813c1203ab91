// Unique ids for executions and external events: 128 random bits as hex.
#pragma once

#include <string>

namespace harel::util {

std::string random_id();

}  // namespace harel::util
