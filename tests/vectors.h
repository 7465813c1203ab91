// Access to the reference implementation's vectors in shared/vectors.
#pragma once

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace harel::testing {

inline std::filesystem::path vectors_dir() { return HAREL_VECTORS_DIR; }

// The file's bytes, without the one trailing newline an editor may add.
inline std::string read_vector(const std::filesystem::path& relative) {
  std::ifstream in(vectors_dir() / relative, std::ios::binary);
  if (!in) throw std::runtime_error("missing vector " + (vectors_dir() / relative).string());
  std::stringstream ss;
  ss << in.rdbuf();
  std::string s = ss.str();
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
  return s;
}

}  // namespace harel::testing
