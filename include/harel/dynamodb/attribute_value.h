// DynamoDB's typed attribute values ({"S": "x"}, {"N": "3"}, ...), built and
// read without a detour through native JSON.
//
// Numbers are decimal TEXT on the wire and stay text here: av::N takes an
// integer (formatted exactly) or decimal text (validated, sent as given), and
// av::number_text / av::get_N hand the text back. Nothing on the way to the
// wire goes through a binary float, so "0.1", 2^63 and 38-digit decimals
// survive unchanged. av::N(double) is deleted on purpose: a caller holding a
// double must choose its decimal text (json::write_double gives the shortest
// round-trip form).
//
// Builders for the store's items:
//
//   boost::json::object item;
//   item.emplace("id", av::S(execution_id));
//   item.emplace("version", av::N(version));
//   ... av::get_S(item, "id"), av::get_int(item, "version")
//
// Readers raise DecodeError (field = the attribute name) when the attribute
// is missing or of another type, so a malformed item is reported, not
// misread. The generic converters at the end map plain JSON documents to and
// from attribute values for callers that do not build items by hand.
#pragma once

#include <concepts>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <type_traits>

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

namespace harel::dynamodb::av {

// ---- builders ----

boost::json::value S(std::string_view text);

// An integer, formatted exactly.
template <std::integral T>
  requires(!std::same_as<T, bool>)
boost::json::value N(T n);

// A number given as decimal text ("-12.50", "1e-7"). Raises InvalidArgument
// unless it is a number in JSON syntax (optionally with leading zeros).
boost::json::value N(std::string_view decimal_text);
boost::json::value N(const char* decimal_text);
boost::json::value N(double) = delete;  // see the header comment
boost::json::value N(float) = delete;
boost::json::value N(bool) = delete;

boost::json::value BOOL(bool b);
boost::json::value Null();  // {"NULL": true}
boost::json::value B(std::string_view bytes);  // raw bytes; base64 on the wire
boost::json::value M(boost::json::object attributes);
boost::json::value L(boost::json::array values);

// Sets must be non-empty and hold distinct members (DynamoDB's rules,
// checked here so the error names the attribute's content rather than
// surfacing as a ValidationException). Raise InvalidArgument otherwise.
boost::json::value SS(std::initializer_list<std::string_view> members);
boost::json::value NS(std::initializer_list<std::string_view> decimal_texts);
boost::json::value BS(std::initializer_list<std::string_view> byte_strings);
template <class Range>
boost::json::value SS(const Range& members);
template <class Range>
boost::json::value NS(const Range& decimal_texts);
template <class Range>
boost::json::value BS(const Range& byte_strings);

// ---- readers of one attribute value ----
// Raise DecodeError (field = `field`) if `value` is not of that type.

std::string_view as_S(const boost::json::value& value, std::string_view field = "");
std::string_view number_text(const boost::json::value& value, std::string_view field = "");
std::int64_t as_int(const boost::json::value& value, std::string_view field = "");  // N holding an int64
bool as_BOOL(const boost::json::value& value, std::string_view field = "");
bool is_null(const boost::json::value& value);  // {"NULL": true}
std::string as_B(const boost::json::value& value, std::string_view field = "");  // decoded bytes
const boost::json::object& as_M(const boost::json::value& value, std::string_view field = "");
const boost::json::array& as_L(const boost::json::value& value, std::string_view field = "");

// ---- readers of an item's attribute ----

// The attribute value, or nullptr if the item has no such attribute.
const boost::json::value* find(const boost::json::object& item, std::string_view name);
// The attribute value; DecodeError if absent.
const boost::json::value& at(const boost::json::object& item, std::string_view name);

inline std::string_view get_S(const boost::json::object& item, std::string_view name) {
  return as_S(at(item, name), name);
}
inline std::string_view get_N(const boost::json::object& item, std::string_view name) {
  return number_text(at(item, name), name);
}
inline std::int64_t get_int(const boost::json::object& item, std::string_view name) {
  return as_int(at(item, name), name);
}
inline bool get_BOOL(const boost::json::object& item, std::string_view name) { return as_BOOL(at(item, name), name); }
inline std::string get_B(const boost::json::object& item, std::string_view name) { return as_B(at(item, name), name); }

// ---- generic conversion of plain JSON ----

// Plain JSON → attribute value: string → S, integer → N (exact), double → N
// (shortest round-trip text; non-finite raises InvalidArgument), bool → BOOL,
// null → NULL, object → M, array → L. Never produces B or sets.
boost::json::value to_attribute_value(const boost::json::value& plain);
boost::json::object to_item(const boost::json::object& plain);

enum class Numbers {
  // N → int64 (or uint64) when it is an integer in range, else double —
  // which rounds beyond ~15-17 significant digits. Convenient for documents
  // known to hold doubles.
  Native,
  // N → its decimal text as a JSON string. Exact, always.
  Text,
};

// Attribute value → plain JSON: S → string, N → per `numbers`, BOOL, NULL,
// M → object, L → array, B → base64 text (plain JSON has no bytes), SS/NS/BS
// → arrays. DecodeError for anything that is not an attribute value.
boost::json::value from_attribute_value(const boost::json::value& value, Numbers numbers = Numbers::Native);
boost::json::object from_item(const boost::json::object& item, Numbers numbers = Numbers::Native);

// ---- implementation of the templates ----

namespace detail {
boost::json::value integer(std::int64_t n);
boost::json::value unsigned_integer(std::uint64_t n);
// Validates and wraps `members` (strings) as {type: members}.
boost::json::value set(std::string_view type, boost::json::array members);
void add_member(boost::json::array& members, std::string_view type, std::string_view member);
}  // namespace detail

template <std::integral T>
  requires(!std::same_as<T, bool>)
boost::json::value N(T n) {
  if constexpr (std::is_signed_v<T>)
    return detail::integer(n);
  else
    return detail::unsigned_integer(n);
}

template <class Range>
boost::json::value SS(const Range& members) {
  boost::json::array a;
  for (const auto& m : members) detail::add_member(a, "SS", std::string_view(m));
  return detail::set("SS", std::move(a));
}
template <class Range>
boost::json::value NS(const Range& decimal_texts) {
  boost::json::array a;
  for (const auto& m : decimal_texts) detail::add_member(a, "NS", std::string_view(m));
  return detail::set("NS", std::move(a));
}
template <class Range>
boost::json::value BS(const Range& byte_strings) {
  boost::json::array a;
  for (const auto& m : byte_strings) detail::add_member(a, "BS", std::string_view(m));
  return detail::set("BS", std::move(a));
}

}  // namespace harel::dynamodb::av
