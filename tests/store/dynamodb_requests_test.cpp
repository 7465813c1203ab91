// The DynamoDB store's requests, pinned with a recording client: the shapes
// the seed specifies, call by call, without a server.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <boost/json/parse.hpp>

#include "harel/errors.h"
#include "harel/store/dynamodb_store.h"
#include "store/recording_client.h"
#include "util/base64.h"

namespace harel::testing {
namespace {

namespace bj = boost::json;
using ::testing::ElementsAre;

bj::value J(std::string_view text) { return bj::parse(text); }

Execution make_execution(const std::string& id, std::int64_t version = 0) {
  Execution e;
  e.id = id;
  e.definition_id = "order";
  e.context = {{"n", 1}};
  e.version = version;
  return e;
}

Event make_event(const std::string& id) {
  Event ev;
  ev.id = id;
  ev.kind = "Finished";
  ev.data = {{"outcome", "success"}};
  return ev;
}

// Answers counters with n = `counter_total`, the trace Query with `max_idx`
// (none if negative), and everything else with {}.
RecordingClient::Script answers(std::int64_t counter_total = 1, std::int64_t max_idx = -1) {
  return [=](const std::string& op, const bj::object&) -> bj::value {
    if (op == "UpdateItem") return bj::object{{"Attributes", {{"n", {{"N", std::to_string(counter_total)}}}}}};
    if (op == "Query") {
      bj::array items;
      if (max_idx >= 0) items.push_back(bj::object{{"idx", {{"N", std::to_string(max_idx)}}}});
      return bj::object{{"Items", items}, {"Count", items.size()}};
    }
    return bj::object();
  };
}

class DynamoRequests : public ::testing::Test {
 protected:
  void use(RecordingClient::Script script, std::int64_t trace_max = kDefaultTraceMax) {
    client_ = std::make_shared<RecordingClient>(std::move(script));
    DynamoDBStoreOptions options;
    options.prefix = "p";
    options.trace_max = trace_max;
    store_ = std::make_unique<DynamoDBStore>(client_, options);
  }
  std::shared_ptr<RecordingClient> client_;
  std::unique_ptr<DynamoDBStore> store_;
};

TEST_F(DynamoRequests, InsertIsOneTransactionWhoseFirstItemIsTheCasPut) {
  use(answers());
  Execution e = make_execution("x1");
  store_->save(e);
  ASSERT_THAT(client_->operations(), ElementsAre("TransactWriteItems"));
  const bj::object req = client_->calls()[0].request;
  const bj::array& items = req.at("TransactItems").as_array();
  ASSERT_EQ(items.size(), 1u);
  const bj::object& put = items[0].at("Put").as_object();
  EXPECT_EQ(put.at("TableName"), "p_executions");
  EXPECT_EQ(put.at("ConditionExpression"), "attribute_not_exists(id)");
  EXPECT_FALSE(put.contains("ExpressionAttributeValues"));
  const bj::object& item = put.at("Item").as_object();
  EXPECT_EQ(item.at("id"), J(R"({"S":"x1"})"));
  EXPECT_EQ(item.at("version"), J(R"({"N":"1"})"));
  EXPECT_EQ(item.at("definition_id"), J(R"({"S":"order"})"));
  // The data carries the committed version.
  EXPECT_EQ(bj::parse(item.at("data").at("S").as_string()).at("version"), 1);
  EXPECT_EQ(e.version, 1);
}

TEST_F(DynamoRequests, UpdateConditionsOnTheLoadedVersion) {
  use(answers());
  Execution e = make_execution("x1", 4);
  store_->save(e);
  const bj::object put = client_->calls()[0].request.at("TransactItems").at(0).at("Put").as_object();
  EXPECT_EQ(put.at("ConditionExpression"), "version = :ov");
  EXPECT_EQ(put.at("ExpressionAttributeValues"), J(R"({":ov":{"N":"4"}})"));
  EXPECT_EQ(put.at("Item").at("version"), J(R"({"N":"5"})"));
  EXPECT_EQ(e.version, 5);
}

TEST_F(DynamoRequests, CommitReservesSeqsThenWritesEverythingInOneTransaction) {
  use(answers(/*counter_total=*/7));
  Execution e = make_execution("x1");
  Effects fx;
  fx.emits = {{"parent-1", make_event("evF")}, {std::nullopt, make_event("evG")}};
  fx.spawns = {{"x1.Fork.A.0", "Fork.A", {{"seed", 1}}}};
  fx.processed_event_id = "evA";
  fx.timers = {TimerOp::schedule("Waiting", 1764669600.25), TimerOp::cancel("Old")};
  store_->commit(e, fx);

  ASSERT_THAT(client_->operations(), ElementsAre("UpdateItem", "UpdateItem", "TransactWriteItems"));
  const auto calls = client_->calls();
  EXPECT_EQ(bj::value(calls[0].request), J(R"({"TableName":"p_counters","Key":{"id":{"S":"outbox"}},
      "UpdateExpression":"ADD n :k","ExpressionAttributeValues":{":k":{"N":"2"}},"ReturnValues":"UPDATED_NEW"})"));
  EXPECT_EQ(calls[1].request.at("Key"), J(R"({"id":{"S":"spawn"}})"));
  EXPECT_EQ(calls[1].request.at("ExpressionAttributeValues"), J(R"({":k":{"N":"1"}})"));

  const bj::array& items = calls[2].request.at("TransactItems").as_array();
  ASSERT_EQ(items.size(), 7u);
  EXPECT_TRUE(items[0].at("Put").as_object().contains("ConditionExpression"));
  // Counter total 7 after adding 2 → the block is 6, 7.
  EXPECT_EQ(items[1], J(R"({"Put":{"TableName":"p_outbox","Item":{"seq":{"N":"6"},"target_id":{"S":"parent-1"},
      "event":{"S":"{\"id\":\"evF\",\"kind\":\"Finished\",\"created_time\":null,\"received_time\":null,\"data\":{\"outcome\":\"success\"}}"}}}})"));
  EXPECT_EQ(items[2].at("Put").at("Item").at("seq"), J(R"({"N":"7"})"));
  EXPECT_EQ(items[2].at("Put").at("Item").at("target_id"), J(R"({"NULL":true})"));
  EXPECT_EQ(items[3], J(R"({"Put":{"TableName":"p_spawns","Item":{"seq":{"N":"7"},"parent_id":{"S":"x1"},
      "child_id":{"S":"x1.Fork.A.0"},"root_path":{"S":"Fork.A"},"context":{"S":"{\"seed\": 1}"}}}})"));
  // The dedupe mark is conditional, so an event can never be applied twice.
  EXPECT_EQ(items[4], J(R"x({"Put":{"TableName":"p_processed","Item":{"execution_id":{"S":"x1"},"event_id":{"S":"evA"}},
      "ConditionExpression":"attribute_not_exists(event_id)"}})x"));
  EXPECT_EQ(items[5], J(R"({"Put":{"TableName":"p_timers","Item":{"execution_id":{"S":"x1"},"path":{"S":"Waiting"},
      "fire_at":{"N":"1764669600.25"}}}})"));
  EXPECT_EQ(items[6], J(R"({"Delete":{"TableName":"p_timers","Key":{"execution_id":{"S":"x1"},"path":{"S":"Old"}}}})"));
}

TEST_F(DynamoRequests, TimerOpsOnOnePathCollapseToTheLast) {
  use(answers());
  Execution e = make_execution("x1");
  Effects fx;
  fx.timers = {TimerOp::schedule("W", 10), TimerOp::cancel("W"), TimerOp::schedule("W", 20.5)};
  store_->commit(e, fx);
  const bj::array items = client_->calls()[0].request.at("TransactItems").as_array();
  ASSERT_EQ(items.size(), 2u);  // a transaction may touch one item once
  EXPECT_EQ(items[1].at("Put").at("Item").at("fire_at"), J(R"({"N":"20.5"})"));
}

TEST_F(DynamoRequests, TraceRingIsAPutAndADeleteInTheSameTransaction) {
  use(answers(1, /*max_idx=*/5), /*trace_max=*/3);
  Execution e = make_execution("x1", 2);
  Effects fx;
  fx.trace = TraceStep{{"event_kind", "Go"}, {"to_path", "S1"}};
  store_->commit(e, fx);

  ASSERT_THAT(client_->operations(), ElementsAre("Query", "TransactWriteItems"));
  EXPECT_EQ(bj::value(client_->calls()[0].request), J(R"({"TableName":"p_trace","KeyConditionExpression":"execution_id = :e",
      "ExpressionAttributeValues":{":e":{"S":"x1"}},"ProjectionExpression":"idx","ScanIndexForward":false,"Limit":1})"));
  const bj::array items = client_->calls()[1].request.at("TransactItems").as_array();
  ASSERT_EQ(items.size(), 3u);
  EXPECT_EQ(items[1], J(R"({"Put":{"TableName":"p_trace","Item":{"execution_id":{"S":"x1"},"idx":{"N":"6"},
      "entry":{"S":"{\"event_kind\": \"Go\", \"to_path\": \"S1\"}"}}}})"));
  EXPECT_EQ(items[2], J(R"({"Delete":{"TableName":"p_trace","Key":{"execution_id":{"S":"x1"},"idx":{"N":"3"}}}})"));
}

TEST_F(DynamoRequests, TraceRingSkipsTheDeleteUntilTheWindowIsFull) {
  use(answers(1, /*max_idx=*/-1), /*trace_max=*/3);
  Execution e = make_execution("x1");
  Effects fx;
  fx.trace = TraceStep{{"k", 1}};
  store_->commit(e, fx);
  const bj::array items = client_->calls()[1].request.at("TransactItems").as_array();
  ASSERT_EQ(items.size(), 2u);
  EXPECT_EQ(items[1].at("Put").at("Item").at("idx"), J(R"({"N":"0"})"));
}

TEST_F(DynamoRequests, CancelledTransactionBecomesStoreConflictWithTheStoredVersion) {
  use([](const std::string& op, const bj::object&) -> bj::value {
    if (op == "TransactWriteItems") throw service_error("TransactionCanceledException");
    if (op == "GetItem") return J(R"({"Item":{"version":{"N":"9"}}})");
    return bj::object();
  });
  Execution e = make_execution("x1", 3);
  try {
    store_->save(e);
    FAIL() << "expected StoreConflict";
  } catch (const StoreConflict& c) {
    EXPECT_EQ(c.expected(), 3);
    EXPECT_EQ(c.found(), 9);
  }
  EXPECT_EQ(e.version, 3);
  ASSERT_THAT(client_->operations(), ElementsAre("TransactWriteItems", "GetItem"));
  EXPECT_EQ(bj::value(client_->calls()[1].request),
            J(R"({"TableName":"p_executions","Key":{"id":{"S":"x1"}},"ConsistentRead":true,"ProjectionExpression":"version"})"));
}

TEST_F(DynamoRequests, AFailedDedupeConditionIsAlreadyProcessed) {
  use([](const std::string& op, const bj::object&) -> bj::value {
    if (op == "TransactWriteItems")
      throw dynamodb::DynamoError("TransactionCanceledException", "cancelled", 400, false, "r",
                                  J(R"({"CancellationReasons":[{"Code":"None"},{"Code":"ConditionalCheckFailed"}]})")
                                      .as_object());
    return bj::object();
  });
  Execution e = make_execution("x1", 4);
  Effects fx;
  fx.processed_event_id = "evA";
  try {
    store_->commit(e, fx);
    FAIL() << "expected AlreadyProcessed";
  } catch (const AlreadyProcessed& p) {
    EXPECT_EQ(p.event_id(), "evA");
    EXPECT_EQ(p.execution_id(), "x1");
  }
  EXPECT_EQ(e.version, 4);
  EXPECT_THAT(client_->operations(), ElementsAre("TransactWriteItems"));  // no read-back needed
}

TEST_F(DynamoRequests, OlderMotosConditionalCheckFailedIsAConflictToo) {
  use([](const std::string& op, const bj::object&) -> bj::value {
    if (op == "TransactWriteItems") throw service_error("ConditionalCheckFailedException");
    return bj::object();  // GetItem: no item
  });
  Execution e = make_execution("x1", 1);
  try {
    store_->save(e);
    FAIL() << "expected StoreConflict";
  } catch (const StoreConflict& c) {
    EXPECT_FALSE(c.found().has_value());
  }
}

TEST_F(DynamoRequests, OtherErrorsAreNotConflicts) {
  use([](const std::string& op, const bj::object&) -> bj::value {
    if (op == "TransactWriteItems") throw service_error("ThrottlingException");
    return bj::object();
  });
  Execution e = make_execution("x1", 1);
  try {
    store_->save(e);
    FAIL() << "expected DynamoError";
  } catch (const dynamodb::DynamoError& err) {
    EXPECT_EQ(err.code(), "ThrottlingException");
  }
  EXPECT_EQ(e.version, 1);
  EXPECT_THAT(client_->operations(), ElementsAre("TransactWriteItems"));  // no read-back
}

TEST_F(DynamoRequests, LimitsAreCheckedBeforeAnythingIsSent) {
  use(answers());
  Execution e = make_execution("x1");
  Effects many;
  for (int i = 0; i < 100; ++i) many.emits.push_back({"t", make_event("ev" + std::to_string(i))});
  try {
    store_->commit(e, many);
    FAIL() << "expected InvalidArgument";
  } catch (const InvalidArgument& err) {
    EXPECT_THAT(err.what(), ::testing::HasSubstr("101 transaction items"));
    EXPECT_THAT(err.what(), ::testing::HasSubstr("'x1'"));
  }
  Execution big = make_execution("x2");
  big.context["blob"] = std::string(400 * 1024, 'x');
  try {
    store_->save(big);
    FAIL() << "expected InvalidArgument";
  } catch (const InvalidArgument& err) {
    EXPECT_THAT(err.what(), ::testing::HasSubstr("400 KB"));
    EXPECT_THAT(err.what(), ::testing::HasSubstr("'x2'"));
  }
  Execution heavy = make_execution("x3");
  Effects wide;
  for (int i = 0; i < 12; ++i) {
    Event ev = make_event("ev" + std::to_string(i));
    ev.data["blob"] = std::string(390 * 1024, 'y');
    wide.emits.push_back({"t", ev});
  }
  EXPECT_THROW(store_->commit(heavy, wide), InvalidArgument);  // 12 × 390 KB > 4 MB
  EXPECT_TRUE(client_->calls().empty());
  EXPECT_EQ(e.version, 0);
}

TEST_F(DynamoRequests, LoadProjectsDataThroughTheAlias) {
  use([](const std::string&, const bj::object&) -> bj::value { return bj::object(); });
  EXPECT_FALSE(store_->load("x1"));
  EXPECT_EQ(bj::value(client_->calls()[0].request),
            J(R"({"TableName":"p_executions","Key":{"id":{"S":"x1"}},"ConsistentRead":true,
                 "ProjectionExpression":"#d","ExpressionAttributeNames":{"#d":"data"}})"));
}

TEST_F(DynamoRequests, LoadForEventIsOneBatchGetAndRetriesUnprocessedKeys) {
  int round = 0;
  use([&](const std::string&, const bj::object& req) -> bj::value {
    if (++round == 1)  // first round: DynamoDB got to neither key
      return bj::object{{"Responses", bj::object()}, {"UnprocessedKeys", req.at("RequestItems")}};
    return J(R"({"Responses":{"p_executions":[{"data":{"S":"{\"id\":\"x1\",\"definition_id\":\"order\",\"version\":2}"}}],
                "p_processed":[{"execution_id":{"S":"x1"},"event_id":{"S":"evA"}}]},"UnprocessedKeys":{}})");
  });
  const LoadForEvent got = store_->load_for_event("x1", "evA");
  ASSERT_TRUE(got.execution);
  EXPECT_EQ(got.execution->version, 2);
  EXPECT_TRUE(got.already_processed);
  ASSERT_THAT(client_->operations(), ElementsAre("BatchGetItem", "BatchGetItem"));
  EXPECT_EQ(bj::value(client_->calls()[0].request), J(R"({"RequestItems":{
      "p_executions":{"Keys":[{"id":{"S":"x1"}}],"ProjectionExpression":"#d","ExpressionAttributeNames":{"#d":"data"},"ConsistentRead":true},
      "p_processed":{"Keys":[{"execution_id":{"S":"x1"},"event_id":{"S":"evA"}}],"ConsistentRead":true}}})"));
}

TEST_F(DynamoRequests, ListingIsAScanWithServerSideDefinitionFilterAndAnOpaqueCursor) {
  const bj::value lek = J(R"({"id":{"S":"x7"}})");
  use([&](const std::string&, const bj::object& req) -> bj::value {
    if (!req.contains("ExclusiveStartKey"))
      return bj::object{{"Items", J(R"([{"data":{"S":"{\"id\":\"x1\",\"definition_id\":\"order\",\"status\":\"DONE\"}"},"version":{"N":"1"}},
                                        {"data":{"S":"{\"id\":\"x2\",\"definition_id\":\"order\",\"status\":\"RUNNING\"}"},"version":{"N":"1"}}])")},
                        {"LastEvaluatedKey", lek}};
    return bj::object{{"Items", bj::array()}};
  });
  ListQuery q;
  q.definition_id = "order";
  q.statuses = {Status::Done};
  q.limit = 2;
  const ExecutionPage first = store_->list_executions(q);
  ASSERT_EQ(first.items.size(), 1u);  // status is filtered client-side
  EXPECT_EQ(first.items[0].id, "x1");
  ASSERT_TRUE(first.next_cursor);
  // The reference's cursor: padded base64url of json.dumps(LastEvaluatedKey).
  EXPECT_EQ(util::base64url_decode(*first.next_cursor), R"({"id": {"S": "x7"}})");
  EXPECT_EQ(bj::value(client_->calls()[0].request), J(R"({"TableName":"p_executions","ProjectionExpression":"#dat,#v,id",
      "ExpressionAttributeNames":{"#dat":"data","#v":"version","#def":"definition_id"},"Limit":2,
      "FilterExpression":"#def = :def","ExpressionAttributeValues":{":def":{"S":"order"}}})"));

  q.cursor = first.next_cursor;
  const ExecutionPage second = store_->list_executions(q);
  EXPECT_TRUE(second.items.empty());
  EXPECT_FALSE(second.next_cursor);
  EXPECT_EQ(client_->calls()[1].request.at("ExclusiveStartKey"), lek);

  q.cursor = util::base64url_encode(R"({"seq": {"N": "1"}})");  // a key of another table
  EXPECT_THROW(store_->list_executions(q), InvalidCursor);
  EXPECT_EQ(client_->calls().size(), 2u);
}

TEST_F(DynamoRequests, RelayReadsScanEveryPageAndSort) {
  use([](const std::string&, const bj::object& req) -> bj::value {
    if (!req.contains("ExclusiveStartKey"))
      return J(R"({"Items":[{"seq":{"N":"9"},"target_id":{"NULL":true},"event":{"S":"{\"id\":\"b\",\"kind\":\"K\"}"}}],
                   "LastEvaluatedKey":{"seq":{"N":"9"}}})");
    return J(R"({"Items":[{"seq":{"N":"3"},"target_id":{"S":"t"},"event":{"S":"{\"id\":\"a\",\"kind\":\"K\"}"}}]})");
  });
  const auto pending = store_->pending_outbox();
  ASSERT_EQ(pending.size(), 2u);
  EXPECT_EQ(pending[0].seq, 3);
  EXPECT_EQ(pending[0].target_id, "t");
  EXPECT_FALSE(pending[1].target_id);
  ASSERT_THAT(client_->operations(), ElementsAre("Scan", "Scan"));
  EXPECT_EQ(client_->calls()[1].request.at("ExclusiveStartKey"), J(R"({"seq":{"N":"9"}})"));

  client_->clear();
  store_->ack_outbox(3);
  EXPECT_EQ(bj::value(client_->calls()[0].request), J(R"({"TableName":"p_outbox","Key":{"seq":{"N":"3"}}})"));
}

TEST_F(DynamoRequests, DueTimersFilterServerSideAndDeleteIsGuarded) {
  use([](const std::string& op, const bj::object&) -> bj::value {
    if (op == "DeleteItem") throw service_error("ConditionalCheckFailedException");
    return J(R"({"Items":[{"execution_id":{"S":"b"},"path":{"S":"P"},"fire_at":{"N":"200.5"}},
                          {"execution_id":{"S":"a"},"path":{"S":"Q"},"fire_at":{"N":"100"}}]})");
  });
  EXPECT_THAT(store_->due_timers(1764669600.25), ElementsAre(DueTimer{"a", "Q", 100}, DueTimer{"b", "P", 200.5}));
  EXPECT_EQ(bj::value(client_->calls()[0].request), J(R"({"TableName":"p_timers","FilterExpression":"fire_at <= :now",
      "ExpressionAttributeValues":{":now":{"N":"1764669600.25"}}})"));
  EXPECT_FALSE(store_->delete_timer("a", "Q", 100));  // the guard failed: a no-op, not an error
  EXPECT_EQ(bj::value(client_->calls()[1].request), J(R"({"TableName":"p_timers","Key":{"execution_id":{"S":"a"},"path":{"S":"Q"}},
      "ConditionExpression":"fire_at = :f","ExpressionAttributeValues":{":f":{"N":"100.0"}}})"));
}

TEST_F(DynamoRequests, CorruptItemsNameTheirTableAndKey) {
  use([](const std::string& op, const bj::object&) -> bj::value {
    if (op == "GetItem") return J(R"({"Item":{"data":{"S":"{not json"}}})");
    return J(R"({"Items":[{"seq":{"N":"4"},"target_id":{"S":"t"},"event":{"S":"[]"}}]})");
  });
  try {
    store_->load("x1");
    FAIL();
  } catch (const CorruptRecord& c) {
    EXPECT_EQ(c.table(), "p_executions");
    EXPECT_EQ(c.key(), "x1");
  }
  try {
    store_->pending_outbox();
    FAIL();
  } catch (const CorruptRecord& c) {
    EXPECT_EQ(c.table(), "p_outbox");
    EXPECT_EQ(c.key(), "4");
  }
}

TEST(DynamoPrefix, MustMakeLegalTableNames) {
  auto client = std::make_shared<RecordingClient>();
  for (const std::string& bad : {std::string(), std::string("has space"), std::string("slash/"), std::string("ünï"),
                                std::string(250, 'a')}) {
    DynamoDBStoreOptions o;
    o.prefix = bad;
    EXPECT_THROW(DynamoDBStore(client, o), InvalidArgument) << bad;
  }
  DynamoDBStoreOptions ok;
  ok.prefix = "harel-prod.v2_x";
  EXPECT_NO_THROW(DynamoDBStore(client, ok));
}

TEST_F(DynamoRequests, EnsureTablesCreatesSevenTablesAndWaitsForActive) {
  int describes = 0;
  use([&](const std::string& op, const bj::object&) -> bj::value {
    if (op == "CreateTable") throw service_error("ResourceInUseException");  // already there: fine
    ++describes;
    return J(describes == 1 ? R"({"Table":{"TableStatus":"CREATING"}})" : R"({"Table":{"TableStatus":"ACTIVE"}})");
  });
  store_->ensure_tables();
  const auto calls = client_->calls();
  ASSERT_EQ(calls.size(), 7u + 8u);
  EXPECT_EQ(bj::value(calls[3].request), J(R"({"TableName":"p_timers",
      "KeySchema":[{"AttributeName":"execution_id","KeyType":"HASH"},{"AttributeName":"path","KeyType":"RANGE"}],
      "AttributeDefinitions":[{"AttributeName":"execution_id","AttributeType":"S"},{"AttributeName":"path","AttributeType":"S"}],
      "BillingMode":"PAY_PER_REQUEST"})"));

  use([](const std::string& op, const bj::object&) -> bj::value {
    if (op == "CreateTable") throw service_error("AccessDeniedException");
    return bj::object();
  });
  EXPECT_THROW(store_->ensure_tables(), dynamodb::DynamoError);
}

}  // namespace
}  // namespace harel::testing
