#include "util/random_id.h"

#include <cstdint>
#include <random>

namespace harel::util {

std::string random_id() {
  thread_local std::mt19937_64 rng{std::random_device{}()};
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (int word = 0; word < 2; ++word) {
    std::uint64_t bits = rng();
    for (int i = 0; i < 16; ++i, bits >>= 4) out += kHex[bits & 0xF];
  }
  return out;
}

}  // namespace harel::util
