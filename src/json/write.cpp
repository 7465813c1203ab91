#include "harel/json/write.h"

#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>

namespace harel::json {
namespace {

constexpr char kHex[] = "0123456789abcdef";

// The bytes write_string copies as they are, by style (a table: strings are
// scanned byte by byte).
constexpr std::array<bool, 256> plain_bytes(Style style) {
  std::array<bool, 256> plain{};
  for (unsigned c = 0x20; c < 256; ++c) plain[c] = c != '"' && c != '\\' && (style == Style::Compact || c < 0x7F);
  return plain;
}
constexpr std::array<bool, 256> kPlainCompact = plain_bytes(Style::Compact);
constexpr std::array<bool, 256> kPlainPython = plain_bytes(Style::Python);

void append_u4(std::string& out, unsigned code) {
  out += "\\u";
  out += kHex[(code >> 12) & 0xF];
  out += kHex[(code >> 8) & 0xF];
  out += kHex[(code >> 4) & 0xF];
  out += kHex[code & 0xF];
}

// Decodes one UTF-8 sequence at s[i]; advances i. Invalid bytes yield U+FFFD.
std::uint32_t next_code_point(std::string_view s, std::size_t& i) {
  const auto b0 = static_cast<unsigned char>(s[i]);
  int extra = b0 >= 0xF0 ? 3 : b0 >= 0xE0 ? 2 : b0 >= 0xC0 ? 1 : 0;
  std::uint32_t cp = extra == 3 ? (b0 & 0x07u) : extra == 2 ? (b0 & 0x0Fu) : extra == 1 ? (b0 & 0x1Fu) : b0;
  if (b0 >= 0x80 && extra == 0) {
    ++i;
    return 0xFFFD;
  }
  if (i + static_cast<std::size_t>(extra) >= s.size()) {  // truncated sequence
    i = s.size();
    return 0xFFFD;
  }
  for (int k = 1; k <= extra; ++k) {
    const auto b = static_cast<unsigned char>(s[i + static_cast<std::size_t>(k)]);
    if ((b & 0xC0) != 0x80) {
      i += static_cast<std::size_t>(k);
      return 0xFFFD;
    }
    cp = (cp << 6) | (b & 0x3Fu);
  }
  i += static_cast<std::size_t>(extra) + 1;
  return cp;
}

// Shortest round-trip digits of |d| and the decimal exponent of the first
// digit: d = 0.DIGITS * 10^(point) with `point` = position of the decimal
// point relative to the digit string.
struct Decimal {
  std::string digits;
  int point = 0;
};

Decimal shortest_decimal(double d) {
  std::array<char, 64> buf{};
  auto [end, ec] = std::to_chars(buf.data(), buf.data() + buf.size(), std::fabs(d), std::chars_format::scientific);
  (void)ec;  // 64 bytes always suffice for a double
  std::string_view text(buf.data(), static_cast<std::size_t>(end - buf.data()));
  const auto e = text.find('e');
  Decimal out;
  for (char c : text.substr(0, e))
    if (c != '.') out.digits += c;
  out.point = std::atoi(std::string(text.substr(e + 1)).c_str()) + 1;
  return out;
}

void write_exponent_form(std::string& out, const Decimal& dec, Style style) {
  out += dec.digits[0];
  if (dec.digits.size() > 1) {
    out += '.';
    out.append(dec.digits, 1);
  }
  out += 'e';
  const int exp = dec.point - 1;
  if (style == Style::Python) {
    out += exp < 0 ? '-' : '+';
    const int mag = std::abs(exp);
    if (mag < 10) out += '0';
    out += std::to_string(mag);
  } else {
    out += std::to_string(exp);
  }
}

void write_positional_form(std::string& out, const Decimal& dec) {
  const auto n = static_cast<int>(dec.digits.size());
  if (dec.point <= 0) {
    out += "0.";
    out.append(static_cast<std::size_t>(-dec.point), '0');
    out += dec.digits;
  } else if (dec.point >= n) {
    out += dec.digits;
    out.append(static_cast<std::size_t>(dec.point - n), '0');
    out += ".0";
  } else {
    out.append(dec.digits, 0, static_cast<std::size_t>(dec.point));
    out += '.';
    out.append(dec.digits, static_cast<std::size_t>(dec.point));
  }
}

void write_object(std::string& out, const boost::json::object& o, Style style);

void write_value(std::string& out, const boost::json::value& v, Style style) {
  switch (v.kind()) {
    case boost::json::kind::null:
      out += "null";
      return;
    case boost::json::kind::bool_:
      out += v.get_bool() ? "true" : "false";
      return;
    case boost::json::kind::int64:
      out += std::to_string(v.get_int64());
      return;
    case boost::json::kind::uint64:
      out += std::to_string(v.get_uint64());
      return;
    case boost::json::kind::double_:
      write_double(out, v.get_double(), style);
      return;
    case boost::json::kind::string:
      write_string(out, v.get_string(), style);
      return;
    case boost::json::kind::array: {
      out += '[';
      bool first = true;
      for (const auto& e : v.get_array()) {
        if (!first) out += style == Style::Python ? ", " : ",";
        first = false;
        write_value(out, e, style);
      }
      out += ']';
      return;
    }
    case boost::json::kind::object:
      write_object(out, v.get_object(), style);
      return;
  }
}

void write_object(std::string& out, const boost::json::object& o, Style style) {
  out += '{';
  bool first = true;
  for (const auto& kv : o) {
    if (!first) out += style == Style::Python ? ", " : ",";
    first = false;
    write_string(out, kv.key(), style);
    out += style == Style::Python ? ": " : ":";
    write_value(out, kv.value(), style);
  }
  out += '}';
}

}  // namespace

void write_string(std::string& out, std::string_view s, Style style) {
  // Characters written as they are: everything but quotes, backslashes and
  // controls — and, for Python, DEL and non-ASCII. Runs of them are appended
  // at once (strings are mostly such runs); the rest one by one below.
  const std::array<bool, 256>& plain = style == Style::Python ? kPlainPython : kPlainCompact;
  out += '"';
  for (std::size_t i = 0; i < s.size();) {
    std::size_t run = i;
    while (run < s.size() && plain[static_cast<unsigned char>(s[run])]) ++run;
    out.append(s.data() + i, run - i);
    i = run;
    if (i == s.size()) break;
    const auto c = static_cast<unsigned char>(s[i]);
    switch (c) {
      case '"': out += "\\\""; ++i; continue;
      case '\\': out += "\\\\"; ++i; continue;
      case '\b': out += "\\b"; ++i; continue;
      case '\f': out += "\\f"; ++i; continue;
      case '\n': out += "\\n"; ++i; continue;
      case '\r': out += "\\r"; ++i; continue;
      case '\t': out += "\\t"; ++i; continue;
      default: break;
    }
    if (c < 0x80) {  // a control character (or, for Python, DEL)
      append_u4(out, c);
      ++i;
    } else {  // Python's ensure_ascii: escape every non-ASCII code point
      const std::uint32_t cp = next_code_point(s, i);
      if (cp >= 0x10000) {
        const std::uint32_t v = cp - 0x10000;
        append_u4(out, 0xD800 + (v >> 10));
        append_u4(out, 0xDC00 + (v & 0x3FF));
      } else {
        append_u4(out, cp);
      }
    }
  }
  out += '"';
}

void write_double(std::string& out, double d, Style style) {
  if (!std::isfinite(d)) {
    out += "null";
    return;
  }
  if (d == 0) {
    out += std::signbit(d) ? "-0.0" : "0.0";
    return;
  }
  if (d < 0) out += '-';
  const Decimal dec = shortest_decimal(d);
  // Where each writer switches to exponent notation:
  //   Python repr: exponent < -4 or >= 16;  ryu (pydantic): point outside (-5, 16].
  const int exp = dec.point - 1;
  const bool exponent_form = style == Style::Python ? (exp < -4 || exp >= 16) : (dec.point <= -5 || dec.point > 16);
  if (exponent_form)
    write_exponent_form(out, dec, style);
  else
    write_positional_form(out, dec);
}

void write(std::string& out, const boost::json::value& v, Style style) { write_value(out, v, style); }
void write(std::string& out, const boost::json::object& o, Style style) { write_object(out, o, style); }

std::string to_string(const boost::json::value& v, Style style) {
  std::string out;
  write_value(out, v, style);
  return out;
}

std::string to_string(const boost::json::object& o, Style style) {
  std::string out;
  write_object(out, o, style);
  return out;
}

}  // namespace harel::json
