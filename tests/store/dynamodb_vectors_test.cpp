// The tables this store writes, item for item, against the reference
// implementation's (shared/vectors/dynamodb_tables_after_commits.json).
#include <algorithm>

#include <boost/asio/io_context.hpp>
#include <boost/json/parse.hpp>
#include <gtest/gtest.h>

#include "harel/dynamodb/http_client.h"
#include "harel/json/write.h"
#include "harel/store/dynamodb_store.h"
#include "support/servers.h"
#include "vectors.h"

namespace harel::testing {
namespace {

namespace bj = boost::json;

// An item with its attributes in name order (DynamoDB keeps none) and JSON
// text inside S attributes replaced by its parsed value, so that formatting
// differences do not matter but content does.
bj::value normalized(const bj::object& item) {
  std::vector<const bj::key_value_pair*> attributes;
  for (const auto& kv : item) attributes.push_back(&kv);
  std::sort(attributes.begin(), attributes.end(), [](auto* a, auto* b) { return a->key() < b->key(); });
  bj::object out;
  for (const auto* kv : attributes) {
    bj::value v = kv->value();
    if (const bj::value* s = v.as_object().if_contains("S")) {
      boost::system::error_code ec;
      bj::value parsed = bj::parse(s->as_string(), ec);
      if (!ec && (parsed.is_object() || parsed.is_array())) v = bj::object{{"S(json)", parsed}};
    }
    out.emplace(kv->key(), std::move(v));
  }
  return out;
}

std::vector<std::string> normalized_items(const bj::array& items) {
  std::vector<std::string> out;
  for (const auto& item : items) out.push_back(json::to_string(normalized(item.as_object())));
  std::sort(out.begin(), out.end());
  return out;
}

TEST(DynamoDBVectors, TablesMatchTheReferenceItemForItem) {
  const bj::value expected = bj::parse(read_vector("dynamodb_tables_after_commits.json"));
  const std::string endpoint = dynamodb_local_endpoint();

  DynamoDBConnect connect;
  connect.endpoint_url = endpoint;
  connect.store.prefix = unique_prefix("vec");
  connect.store.trace_max = 2;
  auto store = DynamoDBStore::create(connect);

  // The sequence the vector's note names.
  Execution x1;
  x1.id = "x1";
  x1.definition_id = "order";
  x1.context = {{"n", 1}};
  Effects first;
  first.emits.push_back({"parent-1", Event{"evF", "Finished", std::nullopt, std::nullopt, {{"outcome", "success"}}, {}}});
  first.processed_event_id = "evA";
  first.timers.push_back(TimerOp::schedule("Waiting", 1764669600.25));
  first.spawns.push_back({"x1.Fork.A.0", "Fork.A", {{"seed", 1}}});
  first.trace = TraceStep{{"event_kind", "Start"}, {"to_path", "S"}};
  store->commit(x1, first);
  for (int i = 0; i < 2; ++i) {
    Effects traced;
    traced.processed_event_id = "evB" + std::to_string(i);
    traced.trace = TraceStep{{"event_kind", "Go"}, {"to_path", "S" + std::to_string(i)}};
    store->commit(x1, traced);
  }
  ASSERT_EQ(x1.version, 3);

  boost::asio::io_context io;
  dynamodb::HttpDynamoClient raw(io.get_executor(), dynamodb::resolve_settings({endpoint, {}, {}, {}}));
  for (const auto& [name, table] : expected.at("tables").as_object()) {
    SCOPED_TRACE(std::string(name));
    const std::string table_name = connect.store.prefix + "_" + std::string(name);
    const bj::value described = raw.call("DescribeTable", {{"TableName", table_name}});
    EXPECT_EQ(described.at("Table").at("KeySchema"), table.at("KeySchema"));
    EXPECT_EQ(described.at("Table").at("AttributeDefinitions"), table.at("AttributeDefinitions"));
    EXPECT_EQ(described.at("Table").at("BillingModeSummary").at("BillingMode"), table.at("BillingMode"));
    const bj::value scanned = raw.call("Scan", {{"TableName", table_name}});
    EXPECT_EQ(normalized_items(scanned.at("Items").as_array()), normalized_items(table.at("Items").as_array()));
  }
}

}  // namespace
}  // namespace harel::testing
