// Real calls through HttpDynamoClient against AWS's DynamoDB Local and
// moto_server, both on loopback (tests/support/servers.h).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/json/parse.hpp>

#include "harel/dynamodb/attribute_value.h"
#include "harel/dynamodb/errors.h"
#include "harel/dynamodb/http_client.h"
#include "support/servers.h"

namespace harel::dynamodb {
namespace {

namespace asio = boost::asio;
namespace json = boost::json;

struct Backend {
  const char* name;
  std::string (*endpoint)();
};

void PrintTo(const Backend& b, std::ostream* os) { *os << b.name; }

class RealServerTest : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override {
    SettingsOverrides o;
    o.endpoint_url = GetParam().endpoint();
    settings_ = resolve_settings(o, Environment::from_map({}));  // local: dummy credentials, us-east-1
    client_ = std::make_unique<HttpDynamoClient>(io_.get_executor(), settings_);
    table_ = testing::unique_prefix("harel") + "_executions";
    client_->call("CreateTable", json::parse(R"({"TableName":")" + table_ + R"(",
        "KeySchema":[{"AttributeName":"id","KeyType":"HASH"}],
        "AttributeDefinitions":[{"AttributeName":"id","AttributeType":"S"}],
        "BillingMode":"PAY_PER_REQUEST"})").as_object());
  }

  void TearDown() override {
    if (client_) client_->call("DeleteTable", {{"TableName", table_}});
  }

  json::object item(std::string_view id, std::int64_t version) {
    json::object it;
    it.emplace("id", av::S(id));
    it.emplace("version", av::N(version));
    it.emplace("data", av::S(R"({"note":"ünïcode ✓"})"));
    it.emplace("fire_at", av::N("1700000000.123456789012345"));
    it.emplace("raw", av::B(std::string("\x00\x01\xfe\xff", 4)));
    return it;
  }

  json::object put(json::object it) {
    json::object req;
    req.emplace("TableName", table_);
    req.emplace("Item", std::move(it));
    return req;
  }

  json::object key(std::string_view id) {
    json::object k;
    k.emplace("id", av::S(id));
    json::object req;
    req.emplace("TableName", table_);
    req.emplace("Key", std::move(k));
    req.emplace("ConsistentRead", true);
    return req;
  }

  // A TransactWriteItems that puts `id` at `version` iff it is absent (0) or
  // stored at version-1.
  json::object cas_put(std::string_view id, std::int64_t version) {
    json::object p = put(item(id, version));
    if (version == 1) {
      p.emplace("ConditionExpression", "attribute_not_exists(id)");
    } else {
      p.emplace("ConditionExpression", "version = :ov");
      json::object values;
      values.emplace(":ov", av::N(version - 1));
      p.emplace("ExpressionAttributeValues", std::move(values));
    }
    json::object entry;
    entry.emplace("Put", std::move(p));
    json::object req;
    req.emplace("TransactItems", json::array{std::move(entry)});
    return req;
  }

  asio::io_context io_;
  Settings settings_;
  std::unique_ptr<HttpDynamoClient> client_;
  std::string table_;
};

TEST_P(RealServerTest, DescribePutGetRoundTripsExactValues) {
  const json::value described = client_->call("DescribeTable", {{"TableName", table_}});
  EXPECT_EQ(described.at("Table").at("TableName").as_string(), table_);

  client_->call("PutItem", put(item("e1", 3)));
  const json::value got = client_->call("GetItem", key("e1"));
  const json::object& stored = got.at("Item").as_object();
  EXPECT_EQ(av::get_S(stored, "id"), "e1");
  EXPECT_EQ(av::get_int(stored, "version"), 3);
  EXPECT_EQ(av::get_S(stored, "data"), R"({"note":"ünïcode ✓"})");
  EXPECT_EQ(av::get_N(stored, "fire_at"), "1700000000.123456789012345");  // 25 digits, exact
  EXPECT_EQ(av::get_B(stored, "raw"), std::string("\x00\x01\xfe\xff", 4));

  EXPECT_FALSE(client_->call("GetItem", key("absent")).as_object().contains("Item"));
}

TEST_P(RealServerTest, ConditionalPutFailureIsTyped) {
  client_->call("PutItem", put(item("e1", 1)));
  json::object req = put(item("e1", 1));
  req.emplace("ConditionExpression", "attribute_not_exists(id)");
  try {
    client_->call("PutItem", req);
    FAIL() << "expected ConditionalCheckFailedException";
  } catch (const DynamoError& e) {
    EXPECT_EQ(e.code(), "ConditionalCheckFailedException");
    EXPECT_EQ(e.http_status(), 400);
    EXPECT_FALSE(e.retryable());
  }
}

TEST_P(RealServerTest, CancelledTransactionIsTransactionCanceledException) {
  client_->call("TransactWriteItems", cas_put("e1", 1));
  client_->call("TransactWriteItems", cas_put("e1", 2));
  try {
    client_->call("TransactWriteItems", cas_put("e1", 2));  // stale: stored version is 2 now
    FAIL() << "expected TransactionCanceledException";
  } catch (const DynamoError& e) {
    EXPECT_EQ(e.code(), "TransactionCanceledException");
    EXPECT_FALSE(e.retryable());
  }
  EXPECT_EQ(av::get_int(client_->call("GetItem", key("e1")).at("Item").as_object(), "version"), 2);
}

TEST_P(RealServerTest, MissingTableIsResourceNotFound) {
  try {
    client_->call("GetItem", {{"TableName", table_ + "_nope"}, {"Key", {{"id", {{"S", "x"}}}}}});
    FAIL();
  } catch (const DynamoError& e) {
    EXPECT_EQ(e.code(), "ResourceNotFoundException");
  }
}

TEST_P(RealServerTest, AsyncCallsInACoroutine) {
  std::int64_t version = 0;
  asio::co_spawn(
      io_,
      [&]() -> asio::awaitable<void> {
        co_await client_->async_call("PutItem", put(item("a1", 7)), asio::use_awaitable);
        const json::value got = co_await client_->async_call("GetItem", key("a1"), asio::use_awaitable);
        version = av::get_int(got.at("Item").as_object(), "version");
      },
      [](std::exception_ptr e) {
        if (e) std::rethrow_exception(e);
      });
  io_.run();
  EXPECT_EQ(version, 7);
}

INSTANTIATE_TEST_SUITE_P(Servers, RealServerTest,
                         ::testing::Values(Backend{"DynamoDBLocal", &testing::dynamodb_local_endpoint},
                                           Backend{"Moto", &testing::moto_endpoint}),
                         [](const auto& param_info) { return std::string(param_info.param.name); });

// DynamoDB Local honours ClientRequestToken like DynamoDB: a replay of the
// same transaction with the same token succeeds without applying it twice;
// moto ignores tokens, so this runs against DynamoDB Local only.
class IdempotencyTest : public RealServerTest {};

TEST_P(IdempotencyTest, ReplayedTokenIsAppliedOnce) {
  json::object update;
  update.emplace("TableName", table_);
  update.emplace("Key", json::object{{"id", av::S("counter")}});
  update.emplace("UpdateExpression", "ADD n :one");
  update.emplace("ExpressionAttributeValues", json::object{{":one", av::N(1)}});
  json::object txn;
  txn.emplace("TransactItems", json::array{json::object{{"Update", update}}});
  txn.emplace("ClientRequestToken", "harel-test-token-" + testing::unique_prefix("x"));

  client_->call("TransactWriteItems", txn);
  client_->call("TransactWriteItems", txn);  // "the first answer was lost": same token again
  EXPECT_EQ(av::get_int(client_->call("GetItem", key("counter")).at("Item").as_object(), "n"), 1);

  // The same token on a different request is refused.
  txn["TransactItems"].as_array()[0].as_object()["Update"].as_object()["ExpressionAttributeValues"] =
      json::object{{":one", av::N(5)}};
  try {
    client_->call("TransactWriteItems", txn);
    FAIL() << "expected IdempotentParameterMismatchException";
  } catch (const DynamoError& e) {
    EXPECT_EQ(e.code(), "IdempotentParameterMismatchException");
  }
}

INSTANTIATE_TEST_SUITE_P(Servers, IdempotencyTest,
                         ::testing::Values(Backend{"DynamoDBLocal", &testing::dynamodb_local_endpoint}),
                         [](const auto& param_info) { return std::string(param_info.param.name); });

}  // namespace
}  // namespace harel::dynamodb
