#include "harel/store/open.h"

#include "harel/errors.h"
#include "harel/store/dynamodb_store.h"
#include "harel/store/memory_store.h"
#include "harel/store/sqlite_store.h"
#include "store/store_url.h"

namespace harel {

std::unique_ptr<ExecutionStore> open_store(std::string_view url) {
  const auto parsed = store::StoreUrl::parse(url);
  const std::int64_t trace_max = parsed.int_param("trace_max", kDefaultTraceMax);
  if (parsed.scheme == "memory") {
    parsed.expect_only({"trace_max"});
    return std::make_unique<MemoryStore>(trace_max);
  }
  if (parsed.scheme == "sqlite") {
    parsed.expect_only({"trace_max"});
    if (parsed.rest.empty()) throw InvalidArgument("store URL '" + std::string(url) + "' names no file (sqlite:PATH)");
    SqliteOptions options;
    options.trace_max = trace_max;
    return std::make_unique<SqliteStore>(parsed.rest, options);
  }
  if (parsed.scheme == "dynamodb") {
    parsed.expect_only({"trace_max", "prefix", "region"});
    DynamoDBConnect connect;
    if (!parsed.rest.empty()) {
      // dynamodb://HOST:PORT — a local server (DynamoDB Local, moto) over plain http.
      if (parsed.rest.rfind("//", 0) != 0 || parsed.rest.size() == 2 || parsed.rest.find('/', 2) != std::string::npos)
        throw InvalidArgument("store URL '" + std::string(url) +
                              "': expected dynamodb://HOST:PORT?prefix=P or dynamodb:?region=R&prefix=P");
      connect.endpoint_url = "http:" + parsed.rest;
    }
    if (auto region = parsed.params.find("region"); region != parsed.params.end()) connect.region = region->second;
    if (auto prefix = parsed.params.find("prefix"); prefix != parsed.params.end()) connect.store.prefix = prefix->second;
    connect.store.trace_max = trace_max;
    return DynamoDBStore::create(connect);
  }
  throw InvalidArgument("store URL '" + std::string(url) + "': unknown scheme '" + parsed.scheme +
                        "' (known: sqlite:PATH, memory:, dynamodb://HOST:PORT, dynamodb:?region=R)");
}

}  // namespace harel
