#include "stores.h"

#include "store/dynamodb/operations.h"

namespace harel::bench {

std::unique_ptr<Stores> open_stores(boost::asio::io_context& io, const dynamodb::Settings& settings,
                                    std::string prefix, std::size_t max_connections) {
  dynamodb::HttpClientOptions options;
  options.max_connections = max_connections;
  auto client = std::make_shared<dynamodb::HttpDynamoClient>(io.get_executor(), settings, options);
  auto capture = std::make_shared<CaptureClient>(client);
  DynamoDBStoreOptions store_options;
  store_options.prefix = prefix;
  auto stores = std::unique_ptr<Stores>(new Stores{io, std::move(prefix), settings, client, capture,
                                                   std::make_unique<DynamoDBStore>(client, store_options),
                                                   std::make_unique<DynamoDBStore>(capture, store_options),
                                                   std::make_unique<AsyncDynamoDBStore>(client, store_options)});
  stores->sync->ensure_tables();
  return stores;
}

void drop_tables(Stores& stores) {
  const store::dynamodb::TableNames t(stores.prefix);
  for (const std::string* table : {&t.executions, &t.outbox, &t.spawns, &t.timers, &t.processed, &t.counters, &t.trace})
    stores.client->call("DeleteTable", {{"TableName", *table}});
}

}  // namespace harel::bench
