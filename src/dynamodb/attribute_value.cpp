#include "harel/dynamodb/attribute_value.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <vector>

#include "harel/errors.h"
#include "harel/json/write.h"
#include "util/base64.h"

namespace harel::dynamodb::av {
namespace {

namespace json = boost::json;

json::value tagged(std::string_view type, json::value inner) {
  json::value v(json::object_kind);
  v.get_object().emplace(type, std::move(inner));
  return v;
}

// JSON number syntax, leading zeros allowed ("007" is a valid DynamoDB
// number; it is stored normalized).
bool valid_number(std::string_view s) {
  std::size_t i = 0;
  const auto digits = [&] {
    const std::size_t start = i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
    return i > start;
  };
  if (i < s.size() && s[i] == '-') ++i;
  if (!digits()) return false;
  if (i < s.size() && s[i] == '.') {
    ++i;
    if (!digits()) return false;
  }
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    if (!digits()) return false;
  }
  return i == s.size();
}

// The single member of an attribute value, checked to be `type`.
const json::value& member(const json::value& value, std::string_view type, std::string_view field) {
  if (const json::object* o = value.if_object(); o && o->size() == 1) {
    if (const json::value* inner = o->if_contains(type)) return *inner;
  }
  throw DecodeError(std::string(field), "expected a DynamoDB " + std::string(type) + " attribute value");
}

std::string_view string_member(const json::value& value, std::string_view type, std::string_view field) {
  const json::value& inner = member(value, type, field);
  if (const json::string* s = inner.if_string()) return *s;
  throw DecodeError(std::string(field), "malformed DynamoDB " + std::string(type) + " attribute value");
}

json::value native_number(std::string_view text, Numbers numbers, std::string_view field) {
  if (!valid_number(text)) throw DecodeError(std::string(field), "malformed DynamoDB number '" + std::string(text) + "'");
  if (numbers == Numbers::Text) return json::string(text);
  const char* first = text.data();
  const char* last = text.data() + text.size();
  if (text.find_first_of(".eE") == std::string_view::npos) {
    std::int64_t i = 0;
    if (auto [p, ec] = std::from_chars(first, last, i); ec == std::errc() && p == last) return i;
    std::uint64_t u = 0;
    if (auto [p, ec] = std::from_chars(first, last, u); ec == std::errc() && p == last) return u;
  }
  double d = 0;
  std::from_chars(first, last, d);  // out of range leaves an infinity-free best effort; documented as rounding
  return d;
}

}  // namespace

namespace detail {

json::value integer(std::int64_t n) {
  char buf[24];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, n);
  return tagged("N", json::string(std::string_view(buf, static_cast<std::size_t>(end - buf))));
}

json::value unsigned_integer(std::uint64_t n) {
  char buf[24];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, n);
  return tagged("N", json::string(std::string_view(buf, static_cast<std::size_t>(end - buf))));
}

void add_member(json::array& members, std::string_view type, std::string_view member_text) {
  if (type == "NS" && !valid_number(member_text))
    throw InvalidArgument("NS member '" + std::string(member_text) + "' is not a number");
  if (type == "BS")
    members.emplace_back(util::base64_encode(member_text));
  else
    members.emplace_back(member_text);
}

json::value set(std::string_view type, json::array members) {
  if (members.empty()) throw InvalidArgument("a DynamoDB " + std::string(type) + " set must not be empty");
  std::vector<std::string_view> sorted;
  sorted.reserve(members.size());
  for (const json::value& m : members) sorted.push_back(m.get_string());
  std::sort(sorted.begin(), sorted.end());
  if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end())
    throw InvalidArgument("a DynamoDB " + std::string(type) + " set must not hold duplicates");
  return tagged(type, std::move(members));
}

}  // namespace detail

json::value S(std::string_view text) { return tagged("S", json::string(text)); }

json::value N(std::string_view decimal_text) {
  if (!valid_number(decimal_text))
    throw InvalidArgument("'" + std::string(decimal_text) + "' is not a decimal number");
  return tagged("N", json::string(decimal_text));
}

json::value N(const char* decimal_text) { return N(std::string_view(decimal_text)); }

json::value BOOL(bool b) { return tagged("BOOL", b); }
json::value Null() { return tagged("NULL", true); }
json::value B(std::string_view bytes) { return tagged("B", json::string(util::base64_encode(bytes))); }
json::value M(json::object attributes) { return tagged("M", std::move(attributes)); }
json::value L(json::array values) { return tagged("L", std::move(values)); }

json::value SS(std::initializer_list<std::string_view> members) { return SS<std::initializer_list<std::string_view>>(members); }
json::value NS(std::initializer_list<std::string_view> decimal_texts) {
  return NS<std::initializer_list<std::string_view>>(decimal_texts);
}
json::value BS(std::initializer_list<std::string_view> byte_strings) {
  return BS<std::initializer_list<std::string_view>>(byte_strings);
}

std::string_view as_S(const json::value& value, std::string_view field) { return string_member(value, "S", field); }

std::string_view number_text(const json::value& value, std::string_view field) {
  return string_member(value, "N", field);
}

std::int64_t as_int(const json::value& value, std::string_view field) {
  const std::string_view text = number_text(value, field);
  std::int64_t n = 0;
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (ec != std::errc() || p != text.data() + text.size())
    throw DecodeError(std::string(field), "number '" + std::string(text) + "' is not a 64-bit integer");
  return n;
}

bool as_BOOL(const json::value& value, std::string_view field) {
  const json::value& inner = member(value, "BOOL", field);
  if (!inner.is_bool()) throw DecodeError(std::string(field), "malformed DynamoDB BOOL attribute value");
  return inner.get_bool();
}

bool is_null(const json::value& value) {
  const json::object* o = value.if_object();
  if (!o || o->size() != 1) return false;
  const json::value* inner = o->if_contains("NULL");
  return inner && inner->is_bool() && inner->get_bool();
}

std::string as_B(const json::value& value, std::string_view field) {
  std::optional<std::string> bytes = util::base64_decode(string_member(value, "B", field));
  if (!bytes) throw DecodeError(std::string(field), "DynamoDB B attribute value is not base64");
  return std::move(*bytes);
}

const json::object& as_M(const json::value& value, std::string_view field) {
  const json::value& inner = member(value, "M", field);
  if (!inner.is_object()) throw DecodeError(std::string(field), "malformed DynamoDB M attribute value");
  return inner.get_object();
}

const json::array& as_L(const json::value& value, std::string_view field) {
  const json::value& inner = member(value, "L", field);
  if (!inner.is_array()) throw DecodeError(std::string(field), "malformed DynamoDB L attribute value");
  return inner.get_array();
}

const json::value* find(const json::object& item, std::string_view name) { return item.if_contains(name); }

const json::value& at(const json::object& item, std::string_view name) {
  if (const json::value* v = item.if_contains(name)) return *v;
  throw DecodeError(std::string(name), "missing attribute");
}

json::value to_attribute_value(const json::value& plain) {
  switch (plain.kind()) {
    case json::kind::string:
      return S(plain.get_string());
    case json::kind::int64:
      return detail::integer(plain.get_int64());
    case json::kind::uint64:
      return detail::unsigned_integer(plain.get_uint64());
    case json::kind::double_: {
      const double d = plain.get_double();
      if (!std::isfinite(d)) throw InvalidArgument("DynamoDB numbers must be finite");
      std::string text;
      harel::json::write_double(text, d);
      return tagged("N", json::string(text));
    }
    case json::kind::bool_:
      return BOOL(plain.get_bool());
    case json::kind::null:
      return Null();
    case json::kind::object:
      return M(to_item(plain.get_object()));
    case json::kind::array: {
      json::array values;
      values.reserve(plain.get_array().size());
      for (const json::value& v : plain.get_array()) values.push_back(to_attribute_value(v));
      return L(std::move(values));
    }
  }
  throw InvalidArgument("unsupported JSON kind");
}

json::object to_item(const json::object& plain) {
  json::object item;
  item.reserve(plain.size());
  for (const auto& [k, v] : plain) item.emplace(k, to_attribute_value(v));
  return item;
}

json::value from_attribute_value(const json::value& value, Numbers numbers) {
  const json::object* o = value.if_object();
  if (!o || o->size() != 1) throw DecodeError("", "not a DynamoDB attribute value");
  const auto& [type, inner] = *o->begin();
  // An init-capture: clang 14 (the fuzz build) cannot capture a structured binding.
  const auto malformed = [&kind = type] {
    return DecodeError("", "malformed DynamoDB " + std::string(kind) + " attribute value");
  };
  if (type == "S") {
    if (!inner.is_string()) throw malformed();
    return inner;
  }
  if (type == "N") {
    if (!inner.is_string()) throw malformed();
    return native_number(inner.get_string(), numbers, "");
  }
  if (type == "BOOL") {
    if (!inner.is_bool()) throw malformed();
    return inner;
  }
  if (type == "NULL") return nullptr;
  if (type == "B") {
    if (!inner.is_string()) throw malformed();
    return inner;  // already base64 text
  }
  if (type == "M") {
    if (!inner.is_object()) throw malformed();
    return from_item(inner.get_object(), numbers);
  }
  if (type == "L" || type == "SS" || type == "NS" || type == "BS") {
    if (!inner.is_array()) throw malformed();
    json::array out;
    out.reserve(inner.get_array().size());
    for (const json::value& v : inner.get_array()) {
      if (type == "L") {
        out.push_back(from_attribute_value(v, numbers));
      } else {
        if (!v.is_string()) throw malformed();
        out.push_back(type == "NS" ? native_number(v.get_string(), numbers, "") : v);
      }
    }
    return out;
  }
  throw DecodeError("", "unknown DynamoDB attribute type '" + std::string(type) + "'");
}

json::object from_item(const json::object& item, Numbers numbers) {
  json::object plain;
  plain.reserve(item.size());
  for (const auto& [k, v] : item) {
    try {
      plain.emplace(k, from_attribute_value(v, numbers));
    } catch (const DecodeError& e) {
      // Prefix the attribute name so nested failures read "a.b.c".
      throw DecodeError(e.field().empty() ? std::string(k) : std::string(k) + "." + e.field(),
                        "malformed attribute value");
    }
  }
  return plain;
}

}  // namespace harel::dynamodb::av
