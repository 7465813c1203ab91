// Builds boost::json values from Boost.JSON tokenizer events, as
// boost::json::parser does except for doubles: their text is converted with
// std::from_chars, so every double is correctly rounded (json/parse.h says
// why). json::parse uses it for whole documents; the model decoder
// (model/decode.cpp) for the free-form values inside a record (context,
// event data, unknown fields).
#pragma once

#include <charconv>
#include <cstdint>
#include <string>

#include <boost/json/basic_parser.hpp>
#include <boost/json/value_stack.hpp>

namespace harel::json {

class ValueBuilder {
 public:
  using error_code = boost::system::error_code;
  using sv = boost::json::string_view;

  static constexpr std::size_t max_object_size = boost::json::object::max_size();
  static constexpr std::size_t max_array_size = boost::json::array::max_size();
  static constexpr std::size_t max_key_size = boost::json::string::max_size();
  static constexpr std::size_t max_string_size = boost::json::string::max_size();

  // `temp`: scratch space for the value stack before it allocates.
  ValueBuilder(unsigned char* temp, std::size_t temp_size) : stack_({}, temp, temp_size) {}

  // Starts a new value whose containers and strings come from `sp`.
  void reset(boost::json::storage_ptr sp = {}) { stack_.reset(std::move(sp)); }
  // The value completed since reset().
  boost::json::value release() { return stack_.release(); }

  bool on_document_begin(error_code&) { return true; }
  bool on_document_end(error_code&) { return true; }
  bool on_object_begin(error_code&) { return true; }
  bool on_object_end(std::size_t n, error_code&) {
    stack_.push_object(n);
    return true;
  }
  bool on_array_begin(error_code&) { return true; }
  bool on_array_end(std::size_t n, error_code&) {
    stack_.push_array(n);
    return true;
  }
  bool on_key_part(sv s, std::size_t, error_code&) {
    stack_.push_chars(s);
    return true;
  }
  bool on_key(sv s, std::size_t, error_code&) {
    stack_.push_key(s);
    return true;
  }
  bool on_string_part(sv s, std::size_t, error_code&) {
    stack_.push_chars(s);
    return true;
  }
  bool on_string(sv s, std::size_t, error_code&) {
    stack_.push_string(s);
    return true;
  }
  bool on_number_part(sv s, error_code&) {
    number_.append(s.data(), s.size());
    return true;
  }
  bool on_int64(std::int64_t i, sv, error_code&) {
    number_.clear();
    stack_.push_int64(i);
    return true;
  }
  bool on_uint64(std::uint64_t u, sv, error_code&) {
    number_.clear();
    stack_.push_uint64(u);
    return true;
  }
  bool on_double(double d, sv s, error_code&) {
    number_.append(s.data(), s.size());
    double exact = 0;
    const auto [end, ec] = std::from_chars(number_.data(), number_.data() + number_.size(), exact);
    if (ec == std::errc() && end == number_.data() + number_.size()) d = exact;  // out of range: keep Boost's
    number_.clear();
    stack_.push_double(d);
    return true;
  }
  bool on_bool(bool b, error_code&) {
    stack_.push_bool(b);
    return true;
  }
  bool on_null(error_code&) {
    stack_.push_null();
    return true;
  }
  bool on_comment_part(sv, error_code&) { return true; }
  bool on_comment(sv, error_code&) { return true; }

 private:
  boost::json::value_stack stack_;
  std::string number_;  // the text of a number split across parts
};

}  // namespace harel::json
