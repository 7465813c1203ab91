#include "harel/json/parse.h"

#include <charconv>
#include <string>

#include <boost/json/basic_parser_impl.hpp>
#include <boost/json/error.hpp>
#include <boost/json/value_stack.hpp>

namespace harel::json {
namespace {

namespace bj = boost::json;
using boost::system::error_code;
using sv = bj::string_view;

// Builds the value as boost::json::parser does, except for doubles.
struct PreciseHandler {
  static constexpr std::size_t max_object_size = bj::object::max_size();
  static constexpr std::size_t max_array_size = bj::array::max_size();
  static constexpr std::size_t max_key_size = bj::string::max_size();
  static constexpr std::size_t max_string_size = bj::string::max_size();

  PreciseHandler(unsigned char* temp, std::size_t temp_size) : stack({}, temp, temp_size) {}

  bj::value_stack stack;
  std::string number;  // the text of a number split across parts

  bool on_document_begin(error_code&) { return true; }
  bool on_document_end(error_code&) { return true; }
  bool on_object_begin(error_code&) { return true; }
  bool on_object_end(std::size_t n, error_code&) {
    stack.push_object(n);
    return true;
  }
  bool on_array_begin(error_code&) { return true; }
  bool on_array_end(std::size_t n, error_code&) {
    stack.push_array(n);
    return true;
  }
  bool on_key_part(sv s, std::size_t, error_code&) {
    stack.push_chars(s);
    return true;
  }
  bool on_key(sv s, std::size_t, error_code&) {
    stack.push_key(s);
    return true;
  }
  bool on_string_part(sv s, std::size_t, error_code&) {
    stack.push_chars(s);
    return true;
  }
  bool on_string(sv s, std::size_t, error_code&) {
    stack.push_string(s);
    return true;
  }
  bool on_number_part(sv s, error_code&) {
    number.append(s.data(), s.size());
    return true;
  }
  bool on_int64(std::int64_t i, sv, error_code&) {
    number.clear();
    stack.push_int64(i);
    return true;
  }
  bool on_uint64(std::uint64_t u, sv, error_code&) {
    number.clear();
    stack.push_uint64(u);
    return true;
  }
  bool on_double(double d, sv s, error_code&) {
    number.append(s.data(), s.size());
    double exact = 0;
    const auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), exact);
    if (ec == std::errc() && end == number.data() + number.size()) d = exact;  // out of range: keep Boost's
    number.clear();
    stack.push_double(d);
    return true;
  }
  bool on_bool(bool b, error_code&) {
    stack.push_bool(b);
    return true;
  }
  bool on_null(error_code&) {
    stack.push_null();
    return true;
  }
  bool on_comment_part(sv, error_code&) { return true; }
  bool on_comment(sv, error_code&) { return true; }
};

}  // namespace

bj::value parse(std::string_view text, error_code& ec) {
  // The value stack's scratch space: on the stack unless the document is big.
  unsigned char temp[4096];
  bj::basic_parser<PreciseHandler> parser(bj::parse_options{}, temp, sizeof temp);
  parser.handler().stack.reset();
  const std::size_t used = parser.write_some(false, text.data(), text.size(), ec);
  if (!ec && used < text.size()) ec = bj::error::extra_data;
  if (ec) return nullptr;
  return parser.handler().stack.release();
}

}  // namespace harel::json
