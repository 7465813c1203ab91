// A benchmark workload: one kind of store operation, its data, and its
// operation written against both store APIs. Each workload has its own table
// prefix (Stores) and prepares fresh data for every measured run, so runs do
// not disturb each other (an insert run needs new ids, a relay run a full
// outbox).
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "data.h"
#include "harel/store/async_dynamodb_store.h"
#include "harel/store/execution_store.h"
#include "runner.h"
#include "stores.h"

namespace harel::bench {

class Workload {
 public:
  virtual ~Workload() = default;

  virtual std::string_view name() const = 0;

  // Unmeasured: writes what a run of `ops` operations needs and prepares
  // their inputs. Under run_concurrent at `concurrency`, one worker's
  // operations run one after another (see runner.h).
  virtual void prepare(Stores& stores, DataGenerator& data, std::size_t ops, std::size_t concurrency) = 0;

  // Measured, once before the operations: a step whose answer the
  // operations need (the relay's pending_outbox). Nothing by default.
  virtual void begin(ExecutionStore&) {}
  virtual void begin_async(AsyncDynamoDBStore& store, Done done);

  // Operation `index` (0 ≤ index < ops), blocking or asynchronous.
  virtual void op(ExecutionStore& store, std::size_t index) = 0;
  virtual void op_async(AsyncDynamoDBStore& store, std::size_t index, Done done) = 0;
};

// Names accepted by make_workload, in the benchmark's order.
const std::vector<std::string>& workload_names();
// Raises std::invalid_argument for an unknown name.
std::unique_ptr<Workload> make_workload(std::string_view name, std::size_t list_page);

}  // namespace harel::bench
