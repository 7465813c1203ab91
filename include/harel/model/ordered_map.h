// A small insertion-ordered map.
//
// The reference implementation writes Python dicts, which keep insertion
// order; byte-exact round trips need the same. The maps in an Execution hold
// a handful of entries, so a vector with linear lookup beats a hash map.
#pragma once

#include <algorithm>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace harel {

template <class V>
class OrderedMap {
 public:
  using value_type = std::pair<std::string, V>;
  using iterator = typename std::vector<value_type>::iterator;
  using const_iterator = typename std::vector<value_type>::const_iterator;

  iterator begin() { return items_.begin(); }
  iterator end() { return items_.end(); }
  const_iterator begin() const { return items_.begin(); }
  const_iterator end() const { return items_.end(); }
  std::size_t size() const { return items_.size(); }
  bool empty() const { return items_.empty(); }
  void clear() { items_.clear(); }

  iterator find(std::string_view key) {
    return std::find_if(items_.begin(), items_.end(), [&](const value_type& kv) { return kv.first == key; });
  }
  const_iterator find(std::string_view key) const {
    return std::find_if(items_.begin(), items_.end(), [&](const value_type& kv) { return kv.first == key; });
  }
  bool contains(std::string_view key) const { return find(key) != end(); }

  // Returns the value for `key`, appending a default one if absent.
  V& operator[](std::string_view key) {
    auto it = find(key);
    if (it != end()) return it->second;
    items_.emplace_back(std::string(key), V{});
    return items_.back().second;
  }

  // Sets `key` to `value`, keeping its position when it already exists.
  void insert_or_assign(std::string_view key, V value) { (*this)[key] = std::move(value); }

  bool erase(std::string_view key) {
    auto it = find(key);
    if (it == end()) return false;
    items_.erase(it);
    return true;
  }

  friend bool operator==(const OrderedMap&, const OrderedMap&) = default;

 private:
  std::vector<value_type> items_;
};

}  // namespace harel
