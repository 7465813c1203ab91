#include "store/store_url.h"

#include <algorithm>
#include <charconv>

#include "harel/errors.h"

namespace harel::store {
namespace {

std::string percent_decode(std::string_view s, std::string_view url) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '%') {
      out += s[i];
      continue;
    }
    unsigned value = 0;
    if (i + 2 >= s.size() || std::from_chars(s.data() + i + 1, s.data() + i + 3, value, 16).ptr != s.data() + i + 3)
      throw InvalidArgument("store URL '" + std::string(url) + "': bad percent-escape");
    out += static_cast<char>(value);
    i += 2;
  }
  return out;
}

}  // namespace

StoreUrl StoreUrl::parse(std::string_view url) {
  const auto colon = url.find(':');
  if (colon == std::string_view::npos || colon == 0)
    throw InvalidArgument("store URL '" + std::string(url) +
                          "' has no scheme; expected e.g. sqlite:harel.db, memory:, dynamodb://localhost:8000");
  StoreUrl out;
  out.scheme = std::string(url.substr(0, colon));
  std::string_view rest = url.substr(colon + 1);
  const auto q = rest.find('?');
  if (q != std::string_view::npos) {
    std::string_view query = rest.substr(q + 1);
    rest = rest.substr(0, q);
    while (!query.empty()) {
      const auto amp = query.find('&');
      const std::string_view pair = query.substr(0, amp);
      query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
      if (pair.empty()) continue;
      const auto eq = pair.find('=');
      if (eq == std::string_view::npos || eq == 0)
        throw InvalidArgument("store URL '" + std::string(url) + "': parameter '" + std::string(pair) +
                              "' is not key=value");
      out.params.insert_or_assign(percent_decode(pair.substr(0, eq), url), percent_decode(pair.substr(eq + 1), url));
    }
  }
  out.rest = percent_decode(rest, url);
  return out;
}

std::int64_t StoreUrl::int_param(std::string_view name, std::int64_t fallback) const {
  auto it = params.find(name);
  if (it == params.end()) return fallback;
  std::int64_t value = 0;
  const std::string& text = it->second;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || ptr != text.data() + text.size() || value < 0)
    throw InvalidArgument("store URL parameter " + std::string(name) + "='" + text +
                          "' is not a non-negative integer");
  return value;
}

void StoreUrl::expect_only(std::initializer_list<std::string_view> known) const {
  for (const auto& [key, value] : params)
    if (std::find(known.begin(), known.end(), key) == known.end())
      throw InvalidArgument("store URL scheme '" + scheme + "' does not take parameter '" + key + "'");
}

}  // namespace harel::store
