// The ExecutionStore contract against real servers: AWS's DynamoDB Local and
// moto_server, each test on its own table prefix.
#include "harel/store/dynamodb_store.h"
#include "store/contract.h"
#include "store/raw_dynamodb.h"
#include "support/servers.h"

namespace harel::testing {
namespace {

StoreFactory dynamodb_factory(std::string name, std::string (*endpoint)(), bool atomic_under_concurrency) {
  StoreFactory f;
  f.name = name;
  f.make = [endpoint, name] {
    DynamoDBConnect connect;
    connect.endpoint_url = endpoint();
    connect.store.prefix = unique_prefix(name);
    return std::unique_ptr<ExecutionStore>(DynamoDBStore::create(connect));
  };
  f.corrupt = [endpoint](ExecutionStore& store, const std::string& id, const std::string& raw) {
    put_raw_execution_data(endpoint(), dynamic_cast<DynamoDBStore&>(store).prefix(), id, raw);
  };
  f.atomic_under_concurrency = atomic_under_concurrency;
  return f;
}

HAREL_INSTANTIATE_STORE_CONTRACT(DynamoDBLocal, dynamodb_factory("DynamoDBLocal", dynamodb_local_endpoint, true));
HAREL_INSTANTIATE_STORE_CONTRACT(Moto, dynamodb_factory("Moto", moto_endpoint, false));

}  // namespace
}  // namespace harel::testing
