// What a listing returns: a light view of an Execution (no context) and a page.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "harel/model/execution.h"
#include "harel/model/status.h"

namespace harel {

struct ExecutionSummary {
  std::string id;
  std::string definition_id;
  Status status = Status::Pending;
  std::optional<std::string> outcome;
  std::optional<std::string> active_path;
  std::optional<std::string> parent_id;
  std::string root_path;
  int priority = 0;
  std::int64_t version = 0;

  static ExecutionSummary of(const Execution& exe);
  static ExecutionSummary of(Execution&& exe);  // moves the strings out
  friend bool operator==(const ExecutionSummary&, const ExecutionSummary&) = default;
};

struct ExecutionPage {
  std::vector<ExecutionSummary> items;
  // Opaque; pass it back for the next page. nullopt when the listing is done.
  std::optional<std::string> next_cursor;
};

}  // namespace harel
