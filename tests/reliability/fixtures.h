// Small builders shared by the reliability tests.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <string>

#include <boost/json/array.hpp>

#include "harel/model/event.h"
#include "harel/model/execution.h"

namespace harel::testing {

// An integer from the environment (a --long run raises the defaults).
inline std::int64_t env_int(const char* name, std::int64_t fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::strtoll(v, nullptr, 10) : fallback;
}

inline Execution new_execution(const std::string& id) {
  Execution e;
  e.id = id;
  e.definition_id = "reliability";
  e.context = {{"n", 0}, {"log", boost::json::array()}};
  return e;
}

inline Event tick(const std::string& id) {
  Event ev;
  ev.id = id;
  ev.kind = "Tick";
  ev.data = {{"by", id}};
  return ev;
}

}  // namespace harel::testing
