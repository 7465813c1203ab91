// One workload's tables (its own prefix), reachable through every path the
// benchmark compares: the blocking store, the async store, the bare client
// (raw ceiling) and a capturing store (to record the raw ceiling's requests).
#pragma once

#include <memory>
#include <string>

#include <boost/asio/io_context.hpp>

#include "capture_client.h"
#include "harel/dynamodb/http_client.h"
#include "harel/store/async_dynamodb_store.h"
#include "harel/store/dynamodb_store.h"

namespace harel::bench {

struct Stores {
  boost::asio::io_context& io;  // run by the benchmark thread only
  std::string prefix;
  dynamodb::Settings settings;  // the endpoint and credentials every path uses
  // One client: its async pool (max_connections = the highest concurrency)
  // serves the async store and the raw ceiling alike, its blocking lanes the
  // sync store, so every mode pays for the same HTTP layer.
  std::shared_ptr<dynamodb::HttpDynamoClient> client;
  std::shared_ptr<CaptureClient> capture;
  std::unique_ptr<DynamoDBStore> sync;
  std::unique_ptr<DynamoDBStore> capturing;  // over `capture`
  std::unique_ptr<AsyncDynamoDBStore> async;
};

// Creates the client and stores for `prefix` and ensures its tables.
std::unique_ptr<Stores> open_stores(boost::asio::io_context& io, const dynamodb::Settings& settings,
                                    std::string prefix, std::size_t max_connections);

// Deletes the prefix's tables: against a real account, a benchmark must not
// leave tables (and their bill) behind.
void drop_tables(Stores& stores);

}  // namespace harel::bench
