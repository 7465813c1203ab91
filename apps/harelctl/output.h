// How harelctl prints: aligned text tables for people, JSON for scripts.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include <boost/json/value.hpp>

namespace harelctl {

// A text table: a header row and data rows, columns padded to fit.
class Table {
 public:
  explicit Table(std::vector<std::string> header) : header_(std::move(header)) {}
  void add(std::vector<std::string> row) { rows_.push_back(std::move(row)); }
  bool empty() const { return rows_.empty(); }
  void print(std::ostream& out) const;

 private:
  std::vector<std::string> header_;
  std::vector<std::vector<std::string>> rows_;
};

// JSON with two-space indentation, for `show` and `trace`.
std::string pretty_json(const boost::json::value& v);

// A compact single-line JSON value, for table cells and --json output.
std::string compact_json(const boost::json::value& v);

// Seconds since the epoch as "2026-12-02T10:00:00.250Z".
std::string format_epoch(double seconds);

// CPU time (user + system) this process has used, in seconds: for the
// summaries' CPU per event.
double cpu_seconds();

}  // namespace harelctl
