// One durable statechart execution: the unit the store persists with CAS.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include "harel/model/event.h"
#include "harel/model/ordered_map.h"
#include "harel/model/status.h"

namespace harel {

// What a parent knows about one child Execution of an orthogonal fork.
struct ChildState {
  std::string root_path;  // the region the child runs, e.g. "Fork.A"
  bool finished = false;
  std::optional<std::string> outcome;  // "success", "failed", ... once finished
  boost::json::value result = boost::json::object();
  bool submachine = false;
  std::string key;
  boost::json::object extra;  // unknown fields, written back unchanged

  friend bool operator==(const ChildState&, const ChildState&) = default;
};

struct Execution {
  std::string id;
  std::string definition_id;
  std::optional<std::string> definition_fqn;
  std::string root_path;  // "" for a root execution, the region path for a child
  Status status = Status::Pending;
  std::optional<std::string> outcome;
  std::optional<std::string> error;
  std::optional<std::string> active_path;  // dotted path of the active leaf state
  OrderedMap<std::string> history;         // compound state → last active descendant
  boost::json::object context;             // the workflow's data
  std::int64_t processed_events = 0;
  // Optimistic-concurrency version: 0 = never stored. A successful commit
  // bumps it; the stored JSON carries the committed (bumped) value.
  std::int64_t version = 0;
  int priority = 0;  // 0 (normal) … 4
  std::optional<std::string> parent_id;
  std::optional<std::string> child_id;
  std::vector<Event> deferred;
  OrderedMap<ChildState> children;       // child execution id → its state
  OrderedMap<std::int64_t> invoke_seq;   // state path → spawn counter
  boost::json::object extra;             // unknown fields, written back unchanged

  friend bool operator==(const Execution&, const Execution&) = default;
};

}  // namespace harel
