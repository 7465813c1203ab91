// DynamoDBStore: the ExecutionStore in AWS DynamoDB, exactly as the seed lays
// it out — seven tables "{prefix}_{name}" (executions, outbox, spawns, timers,
// processed, counters, trace), every commit one TransactWriteItems whose
// first item is the CAS-conditioned Execution Put, so a lost CAS writes
// nothing at all.
//
// The store talks to DynamoDB only through the DynamoClient seam: inject any
// client (a recording one in tests, an adapter over the AWS SDK), or let
// create() build the HTTP client from AWS-style settings. The logic is shared
// with AsyncDynamoDBStore; this class drives it with blocking calls.
//
// Differences from the other stores, all from DynamoDB's nature:
// * list_executions is a Scan: unordered, status / roots_only filtered after
//   reading, so pages may be short (even empty) while next_cursor is set.
// * pending_outbox / pending_spawns / due_timers Scan their (near-empty)
//   tables and sort client-side.
// * A commit is bounded by DynamoDB's limits (100 items, 4 MB, 400 KB per
//   item), checked before anything is sent: InvalidArgument, nothing written.
// * The trace ring drops exactly one step per write (DynamoDB has no range
//   delete), so lowering trace_max leaves older steps behind.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>

#include "harel/dynamodb/http_options.h"
#include "harel/store/execution_store.h"

namespace harel {
namespace dynamodb {
class DynamoClient;
}

struct DynamoDBStoreOptions {
  std::string prefix = "harel";  // table names are "{prefix}_{name}"
  std::int64_t trace_max = kDefaultTraceMax;
  // Strongly consistent reads for load, load_for_event, is_processed and the
  // conflict read-back, so a reload after StoreConflict sees the winner.
  bool consistent_reads = true;
};

// Where create() connects. Unset values are found the way AWS tools find them
// (AWS_ENDPOINT_URL_DYNAMODB, AWS_REGION, ~/.aws/..., see dynamodb/config.h).
struct DynamoDBConnect {
  std::optional<std::string> endpoint_url;  // e.g. "http://127.0.0.1:8000"; none = real AWS
  std::optional<std::string> region;
  DynamoDBStoreOptions store;
  dynamodb::HttpClientOptions http;  // the client create() builds: pool size, timeouts, retries, TLS
  int connect_retries = 20;  // attempts to reach the endpoint before giving up
  std::chrono::milliseconds retry_delay{500};
};

class DynamoDBStore final : public ExecutionStore {
 public:
  // Uses `client` as is (the caller keeps ownership; close() does not close
  // it). Creates no tables: call ensure_tables() or use create().
  explicit DynamoDBStore(std::shared_ptr<dynamodb::DynamoClient> client, DynamoDBStoreOptions options = {});

  // Builds an HTTP client for `connect`, retries until the endpoint answers
  // (a local server may still be starting), and ensures the tables.
  static std::unique_ptr<DynamoDBStore> create(const DynamoDBConnect& connect);

  ~DynamoDBStore() override;

  // Creates the seven tables if missing (PAY_PER_REQUEST) and waits until
  // they are ACTIVE. An existing table is fine; any other error is raised.
  void ensure_tables();

  const std::string& prefix() const noexcept;

  std::optional<Execution> load(std::string_view execution_id) override;
  LoadForEvent load_for_event(std::string_view execution_id, std::string_view event_id) override;
  ExecutionPage list_executions(const ListQuery& query) override;
  CommitReceipt commit(Execution& exe, const Effects& effects) override;
  bool is_processed(std::string_view execution_id, std::string_view event_id) override;
  std::vector<OutboxEntry> pending_outbox() override;
  void ack_outbox(std::int64_t seq) override;
  std::vector<SpawnEntry> pending_spawns() override;
  void ack_spawn(std::int64_t seq) override;
  std::vector<DueTimer> due_timers(EpochSeconds now) override;
  bool delete_timer(std::string_view execution_id, std::string_view path, EpochSeconds fire_at) override;
  std::vector<TraceStep> read_trace(std::string_view execution_id) override;
  void append_trace(std::string_view execution_id, const TraceStep& entry) override;
  // Releases the client if this store created it; an injected one stays open.
  void close() override;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace harel
