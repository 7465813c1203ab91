// The ExecutionStore contract against real servers: AWS's DynamoDB Local and
// moto_server, each test on its own table prefix.
#include <boost/asio/io_context.hpp>

#include "harel/dynamodb/http_client.h"
#include "harel/store/dynamodb_store.h"
#include "store/contract.h"
#include "support/servers.h"

namespace harel::testing {
namespace {

// Overwrites an execution's `data` straight through the wire client.
void put_raw_data(const std::string& endpoint, const std::string& prefix, const std::string& id,
                  const std::string& raw) {
  boost::asio::io_context io;
  dynamodb::HttpDynamoClient client(io.get_executor(), dynamodb::resolve_settings({endpoint, {}, {}, {}}));
  client.call("PutItem", {{"TableName", prefix + "_executions"},
                          {"Item", {{"id", {{"S", id}}}, {"data", {{"S", raw}}}, {"version", {{"N", "1"}}}}}});
}

StoreFactory dynamodb_factory(std::string name, std::string (*endpoint)()) {
  StoreFactory f;
  f.name = name;
  f.make = [endpoint, name] {
    DynamoDBConnect connect;
    connect.endpoint_url = endpoint();
    connect.store.prefix = unique_prefix(name);
    return std::unique_ptr<ExecutionStore>(DynamoDBStore::create(connect));
  };
  f.corrupt = [endpoint](ExecutionStore& store, const std::string& id, const std::string& raw) {
    put_raw_data(endpoint(), dynamic_cast<DynamoDBStore&>(store).prefix(), id, raw);
  };
  return f;
}

HAREL_INSTANTIATE_STORE_CONTRACT(DynamoDBLocal, dynamodb_factory("DynamoDBLocal", dynamodb_local_endpoint));
HAREL_INSTANTIATE_STORE_CONTRACT(Moto, dynamodb_factory("Moto", moto_endpoint));

}  // namespace
}  // namespace harel::testing
