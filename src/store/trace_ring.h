// The trace ring's index arithmetic, shared by every store.
//
// Each execution's steps carry a contiguous index derived from the stored data
// (max + 1), not from a counter, so a cancelled commit leaves no gap. A write
// at index K with ring size N drops index K - N: one exact key, which is all a
// DynamoDB transaction can delete.
#pragma once

#include <cstdint>
#include <optional>

#include "harel/model/effects.h"

namespace harel::store {

// The index the caller chose for a step (append_trace's entry["index"]).
inline std::optional<std::int64_t> supplied_trace_index(const TraceStep& entry) {
  if (const auto* idx = entry.if_contains("index"); idx && idx->is_int64()) return idx->get_int64();
  return std::nullopt;
}

// The index for a new step: the supplied one, else `max_index` + 1 (-1 = no
// steps yet).
inline std::int64_t next_trace_index(const TraceStep& entry, std::int64_t max_index) {
  return supplied_trace_index(entry).value_or(max_index + 1);
}

// The index that falls out of the window when `index` is written, if any.
inline std::optional<std::int64_t> trace_index_to_drop(std::int64_t index, std::int64_t trace_max) {
  if (trace_max > 0 && index - trace_max >= 0) return index - trace_max;
  return std::nullopt;
}

// A stored step as read_trace returns it: the entry with "index" merged in.
inline TraceStep with_trace_index(TraceStep entry, std::int64_t index) {
  entry["index"] = index;
  return entry;
}

}  // namespace harel::store
