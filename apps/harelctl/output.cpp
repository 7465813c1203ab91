#include "output.h"

#include <sys/resource.h>

#include <algorithm>
#include <cmath>
#include <ctime>
#include <ostream>

#include "harel/json/write.h"

namespace harelctl {

void Table::print(std::ostream& out) const {
  std::vector<std::size_t> width(header_.size(), 0);
  auto widen = [&](const std::vector<std::string>& row) {
    for (std::size_t i = 0; i < row.size() && i < width.size(); ++i) width[i] = std::max(width[i], row[i].size());
  };
  widen(header_);
  for (const auto& row : rows_) widen(row);
  auto line = [&](const std::vector<std::string>& row) {
    std::string text;
    for (std::size_t i = 0; i < row.size(); ++i) {
      text += row[i];
      if (i + 1 < row.size()) text.append(width[i] - row[i].size() + 2, ' ');
    }
    out << text << '\n';
  };
  line(header_);
  for (const auto& row : rows_) line(row);
}

namespace {
void pretty(std::string& out, const boost::json::value& v, int depth) {
  const auto indent = [&](int d) { out.append(static_cast<std::size_t>(2 * d), ' '); };
  if (const auto* obj = v.if_object(); obj && !obj->empty()) {
    out += "{\n";
    std::size_t i = 0;
    for (const auto& kv : *obj) {
      indent(depth + 1);
      harel::json::write_string(out, kv.key());
      out += ": ";
      pretty(out, kv.value(), depth + 1);
      out += ++i < obj->size() ? ",\n" : "\n";
    }
    indent(depth);
    out += '}';
  } else if (const auto* arr = v.if_array(); arr && !arr->empty()) {
    out += "[\n";
    for (std::size_t i = 0; i < arr->size(); ++i) {
      indent(depth + 1);
      pretty(out, (*arr)[i], depth + 1);
      out += i + 1 < arr->size() ? ",\n" : "\n";
    }
    indent(depth);
    out += ']';
  } else {
    harel::json::write(out, v);
  }
}
}  // namespace

std::string pretty_json(const boost::json::value& v) {
  std::string out;
  pretty(out, v, 0);
  return out;
}

std::string compact_json(const boost::json::value& v) { return harel::json::to_string(v); }

std::string format_epoch(double seconds) {
  const double whole = std::floor(seconds);
  const auto time = static_cast<std::time_t>(whole);
  const int millis = std::clamp(static_cast<int>(std::lround((seconds - whole) * 1000)), 0, 999);
  std::tm tm{};
  gmtime_r(&time, &tm);
  char buf[40];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
  std::string out(buf);
  out += '.';
  out += static_cast<char>('0' + millis / 100);
  out += static_cast<char>('0' + millis / 10 % 10);
  out += static_cast<char>('0' + millis % 10);
  out += 'Z';
  return out;
}

double cpu_seconds() {
  rusage u{};
  ::getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

}  // namespace harelctl
