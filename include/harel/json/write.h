// JSON text exactly as the reference (Python) implementation writes it.
//
// Two writers meet in the seed's tables: pydantic's `model_dump_json` (the
// Execution `data`, outbox events) and the standard library's `json.dumps`
// (spawn `context`, trace `entry`). Another implementation reading our tables
// must see the same bytes, so both styles are reproduced here rather than
// relying on Boost.JSON's serializer (which writes 0.1 as "1E-1").
#pragma once

#include <string>

#include <boost/json/value.hpp>

namespace harel::json {

enum class Style {
  // pydantic `model_dump_json`: no whitespace, UTF-8 kept verbatim, floats in
  // shortest round-trip form ("0.1", "1.0", "1e20", "1e-7").
  Compact,
  // Python `json.dumps` defaults: ", " and ": " separators, non-ASCII escaped
  // as \uXXXX, floats as `repr` ("0.1", "1.0", "1e+20", "1e-07").
  Python,
};

// Appends the JSON text of `v` to `out`. The object overloads spare an
// object the deep copy that converting it to a value would make.
void write(std::string& out, const boost::json::value& v, Style style = Style::Compact);
void write(std::string& out, const boost::json::object& o, Style style = Style::Compact);

// Returns the JSON text of `v`.
std::string to_string(const boost::json::value& v, Style style = Style::Compact);
std::string to_string(const boost::json::object& o, Style style = Style::Compact);

// Appends `s` as a quoted JSON string literal.
void write_string(std::string& out, std::string_view s, Style style = Style::Compact);

// Appends a finite double in `style`'s float form. Non-finite values are
// written as `null`, as pydantic does.
void write_double(std::string& out, double d, Style style = Style::Compact);

}  // namespace harel::json
