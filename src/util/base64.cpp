#include "util/base64.h"

#include <array>
#include <cstdint>

namespace harel::util {
namespace {

constexpr std::string_view kStd = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
constexpr std::string_view kUrl = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

std::string encode(std::string_view in, std::string_view alphabet, bool pad) {
  std::string out;
  out.reserve((in.size() + 2) / 3 * 4);
  std::size_t i = 0;
  for (; i + 3 <= in.size(); i += 3) {
    const std::uint32_t n = (std::uint32_t(std::uint8_t(in[i])) << 16) |
                            (std::uint32_t(std::uint8_t(in[i + 1])) << 8) | std::uint8_t(in[i + 2]);
    out += alphabet[(n >> 18) & 63];
    out += alphabet[(n >> 12) & 63];
    out += alphabet[(n >> 6) & 63];
    out += alphabet[n & 63];
  }
  const std::size_t rest = in.size() - i;
  if (rest) {
    std::uint32_t n = std::uint32_t(std::uint8_t(in[i])) << 16;
    if (rest == 2) n |= std::uint32_t(std::uint8_t(in[i + 1])) << 8;
    out += alphabet[(n >> 18) & 63];
    out += alphabet[(n >> 12) & 63];
    if (rest == 2) out += alphabet[(n >> 6) & 63];
    if (pad) out.append(rest == 1 ? 2 : 1, '=');
  }
  return out;
}

std::optional<std::string> decode(std::string_view in, std::string_view alphabet) {
  std::array<int, 256> value{};
  value.fill(-1);
  for (std::size_t k = 0; k < alphabet.size(); ++k) value[std::uint8_t(alphabet[k])] = int(k);
  while (!in.empty() && in.back() == '=') in.remove_suffix(1);
  if (in.size() % 4 == 1) return std::nullopt;
  std::string out;
  out.reserve(in.size() * 3 / 4);
  std::uint32_t acc = 0;
  int bits = 0;
  for (char c : in) {
    const int v = value[std::uint8_t(c)];
    if (v < 0) return std::nullopt;
    acc = (acc << 6) | std::uint32_t(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += char((acc >> bits) & 0xFF);
    }
  }
  if (bits > 0 && (acc & ((1u << bits) - 1)) != 0) return std::nullopt;  // non-canonical trailing bits
  return out;
}

}  // namespace

std::string base64_encode(std::string_view bytes) { return encode(bytes, kStd, true); }
std::string base64url_encode(std::string_view bytes) { return encode(bytes, kUrl, false); }
std::optional<std::string> base64_decode(std::string_view text) { return decode(text, kStd); }
std::optional<std::string> base64url_decode(std::string_view text) { return decode(text, kUrl); }

}  // namespace harel::util
