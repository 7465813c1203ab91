#include "harel/store/execution_store.h"

#include <string>

#include "harel/errors.h"

namespace harel {

void ExecutionStore::set_trace_max(std::int64_t n) {
  if (n < 0) throw InvalidArgument("trace_max must not be negative, got " + std::to_string(n));
  trace_max_.store(n, std::memory_order_relaxed);
}

}  // namespace harel
