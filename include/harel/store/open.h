// Opening a store from a URL, the way harelctl and applications pick one.
//
//   memory:                         MemoryStore (nothing persists)
//   sqlite:PATH                     SqliteStore on PATH (created if missing)
//   dynamodb://HOST:PORT?prefix=P   DynamoDBStore on a local server over plain
//                                   http (DynamoDB Local, moto)
//   dynamodb:?region=R&prefix=P     DynamoDBStore on AWS over https; the
//                                   endpoint, region and credentials otherwise
//                                   found as AWS tools find them
//                                   (AWS_ENDPOINT_URL_DYNAMODB, AWS_REGION,
//                                   ~/.aws/...). prefix defaults to "harel".
//
// Opening a DynamoDB store creates its tables if missing.
// Every URL takes `?trace_max=N` (default 200). Malformed URLs raise
// InvalidArgument naming the part that is wrong.
#pragma once

#include <memory>
#include <string_view>

#include "harel/store/dynamodb_store.h"
#include "harel/store/execution_store.h"

namespace harel {

// The store URL used when none is given: the embedded SQLite file.
inline constexpr std::string_view kDefaultStoreUrl = "sqlite:harel.db";

std::unique_ptr<ExecutionStore> open_store(std::string_view url);

// What a dynamodb: URL names, for opening the store otherwise than open_store
// does — natively asynchronously, say:
//   AsyncDynamoDBStore::async_create(executor, dynamodb_connect(url), token)
// Raises InvalidArgument for a malformed dynamodb: URL (open_store's
// message) and for a URL of any other scheme.
DynamoDBConnect dynamodb_connect(std::string_view url);

}  // namespace harel
