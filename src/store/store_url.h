// Parsing of store URLs: "scheme:rest?key=value&key=value".
#pragma once

#include <map>
#include <string>
#include <string_view>

namespace harel::store {

struct StoreUrl {
  std::string scheme;  // "sqlite", "memory", ...
  std::string rest;    // what follows "scheme:" up to '?', percent-decoded
  std::map<std::string, std::string, std::less<>> params;

  // Raises InvalidArgument for a malformed URL.
  static StoreUrl parse(std::string_view url);

  // The integer parameter `name`, or `fallback` when absent; InvalidArgument
  // when present but not a non-negative integer.
  std::int64_t int_param(std::string_view name, std::int64_t fallback) const;
  // InvalidArgument naming any parameter not in `known`.
  void expect_only(std::initializer_list<std::string_view> known) const;
};

}  // namespace harel::store
