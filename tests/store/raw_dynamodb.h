// Writing DynamoDB items behind a store's back, for corruption tests.
#pragma once

#include <string>

#include <boost/asio/io_context.hpp>

#include "harel/dynamodb/http_client.h"

namespace harel::testing {

// Overwrites execution `id`'s `data` attribute in table "{prefix}_executions".
inline void put_raw_execution_data(const std::string& endpoint, const std::string& prefix, const std::string& id,
                                   const std::string& raw) {
  boost::asio::io_context io;
  dynamodb::HttpDynamoClient client(io.get_executor(), dynamodb::resolve_settings({endpoint, {}, {}, {}}));
  client.call("PutItem", {{"TableName", prefix + "_executions"},
                          {"Item", {{"id", {{"S", id}}}, {"data", {{"S", raw}}}, {"version", {{"N", "1"}}}}}});
}

}  // namespace harel::testing
