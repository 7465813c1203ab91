// An event delivered to an Execution.
#pragma once

#include <optional>
#include <string>

#include <boost/json/object.hpp>

namespace harel {

struct Event {
  std::string id;    // unique per event; the dedupe key (processed marks)
  std::string kind;  // what transitions match on, e.g. "Paid", "Timeout"
  // ISO-8601 timestamps, kept exactly as written (never re-formatted).
  std::optional<std::string> created_time;
  std::optional<std::string> received_time;
  boost::json::object data;
  // Fields this version does not know, kept in order and written back as read.
  boost::json::object extra;

  friend bool operator==(const Event&, const Event&) = default;
};

}  // namespace harel
