#include "harel/store/open.h"

#include "harel/errors.h"
#include "harel/store/dynamodb_store.h"
#include "harel/store/memory_store.h"
#include "harel/store/sqlite_store.h"
#include "store/store_url.h"

namespace harel {
namespace {

constexpr std::string_view kDynamoDBForms = "dynamodb://HOST:PORT?prefix=P or dynamodb:?region=R&prefix=P";

// What `parsed`, a dynamodb: URL, names; `url` is the text given, for messages.
DynamoDBConnect connect_of(std::string_view url, const store::StoreUrl& parsed) {
  DynamoDBConnect connect;
  connect.store.trace_max = parsed.int_param("trace_max", kDefaultTraceMax);
  parsed.expect_only({"trace_max", "prefix", "region"});
  if (!parsed.rest.empty()) {
    // dynamodb://HOST:PORT — a local server (DynamoDB Local, moto) over plain http.
    if (parsed.rest.rfind("//", 0) != 0 || parsed.rest.size() == 2 || parsed.rest.find('/', 2) != std::string::npos)
      throw InvalidArgument("store URL '" + std::string(url) + "': expected " + std::string(kDynamoDBForms));
    connect.endpoint_url = "http:" + parsed.rest;
  }
  if (auto region = parsed.params.find("region"); region != parsed.params.end()) connect.region = region->second;
  if (auto prefix = parsed.params.find("prefix"); prefix != parsed.params.end()) connect.store.prefix = prefix->second;
  return connect;
}

}  // namespace

DynamoDBConnect dynamodb_connect(std::string_view url) {
  const auto parsed = store::StoreUrl::parse(url);
  if (parsed.scheme != "dynamodb")
    throw InvalidArgument("store URL '" + std::string(url) + "' is not a DynamoDB one: expected " +
                          std::string(kDynamoDBForms));
  return connect_of(url, parsed);
}

std::unique_ptr<ExecutionStore> open_store(std::string_view url) {
  const auto parsed = store::StoreUrl::parse(url);
  if (parsed.scheme == "dynamodb") return DynamoDBStore::create(connect_of(url, parsed));
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
  throw InvalidArgument("store URL '" + std::string(url) + "': unknown scheme '" + parsed.scheme +
                        "' (known: sqlite:PATH, memory:, dynamodb://HOST:PORT, dynamodb:?region=R)");
}

}  // namespace harel
