// Bad input, each a typed, clear error with nothing written — where the unit
// and contract tests do not already show it: corrupt records on every read
// path of DynamoDB Local and SQLite, DynamoDB's limits at their exact
// boundaries against the real server, id byte limits, tampered cursors of
// every store, malformed HTTP answers, and credential failures.
#include <sqlite3.h>
#include <stdlib.h>

#include <filesystem>
#include <functional>
#include <future>
#include <initializer_list>

#include <boost/asio/io_context.hpp>
#include <boost/asio/use_future.hpp>
#include <boost/json/serialize.hpp>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "dynamodb/fake_server.h"
#include "harel/dynamodb/errors.h"
#include "harel/dynamodb/http_client.h"
#include "harel/errors.h"
#include "harel/model/codec.h"
#include "harel/store/async_dynamodb_store.h"
#include "harel/store/dynamodb_store.h"
#include "harel/store/memory_store.h"
#include "harel/store/sqlite_store.h"
#include "reliability/fixtures.h"
#include "reliability/raw_http_server.h"
#include "support/servers.h"
#include "support/temp_dir.h"
#include "support/thrown.h"
#include "util/base64.h"

namespace harel::testing {
namespace {

namespace bj = boost::json;
namespace fs = std::filesystem;
using dynamodb::DynamoError;
using dynamodb::TransportError;
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;

// A DynamoDBStore on DynamoDB Local (own prefix) plus a raw client to look
// under it and to write what the store never would.
class DynamoDBLocal {
 public:
  DynamoDBLocal() : raw_(io_.get_executor(), dynamodb::resolve_settings({dynamodb_local_endpoint(), {}, {}, {}})) {
    DynamoDBConnect connect;
    connect.endpoint_url = dynamodb_local_endpoint();
    connect.store.prefix = unique_prefix("bad");
    store_ = DynamoDBStore::create(connect);
  }
  DynamoDBStore& store() { return *store_; }
  std::string table(const std::string& name) const { return store_->prefix() + "_" + name; }
  void put(const std::string& name, bj::object item) { raw_.call("PutItem", {{"TableName", table(name)}, {"Item", item}}); }
  // How many items a table holds.
  std::size_t count(const std::string& name) {
    return raw_.call("Scan", {{"TableName", table(name)}, {"Select", "COUNT"}}).at("Count").to_number<std::size_t>();
  }
  // Nothing at all in any table (the counters included: no seq was reserved).
  void expect_empty() {
    for (const char* t : {"executions", "outbox", "spawns", "timers", "processed", "counters", "trace"})
      EXPECT_EQ(count(t), 0u) << t;
  }

 private:
  boost::asio::io_context io_;
  dynamodb::HttpDynamoClient raw_;
  std::unique_ptr<DynamoDBStore> store_;
};


void sqlite_exec(const std::string& path, const std::string& sql, const std::string& param) {
  sqlite3* db = nullptr;
  sqlite3_open(path.c_str(), &db);
  sqlite3_stmt* stmt = nullptr;
  sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt, nullptr);
  sqlite3_bind_text(stmt, 1, param.c_str(), -1, SQLITE_TRANSIENT);
  const int rc = sqlite3_step(stmt);
  sqlite3_finalize(stmt);
  sqlite3_close(db);
  if (rc != SQLITE_DONE) throw std::runtime_error("sqlite: " + sql);
}

// ------------------------------------------------------------------ corrupt records

// Stored `data` of every broken kind, checked on each path that reads an
// execution (the contract checks load() alone).
const char* const kBrokenData[] = {
    "not json",
    "",
    R"({"id":"x1","definition_id":"order")",  // truncated
    "[1,2]",
    R"("a string")",
    R"({"id":"x1","definition_id":"order","status":"WEIRD"})",
    R"({"id":"x1","definition_id":"order","version":"one"})",
    R"({"id":"x1","definition_id":7})",
    R"({"id":"x1","definition_id":"order","history":[]})",
    R"({"id":"x1","definition_id":"order","deferred":[{"id":"e","kind":5}]})",
    R"({"id":"x1","definition_id":"order","children":{"c":5}})",
};

// The listing must name the key too, so an operator can find the record: on
// DynamoDB that needs `id` in the listing Scan's projection.
void expect_corrupt_on_every_read(ExecutionStore& store, const std::string& table, const std::string& raw) {
  const std::pair<const char*, std::function<void()>> reads[] = {
      {"load", [&] { store.load("x1"); }},
      {"load_for_event", [&] { store.load_for_event("x1", "ev"); }},
      {"list_executions", [&] { store.list_executions({}); }}};
  for (const auto& [name, read] : reads) {
    const auto c = thrown<CorruptRecord>(read);
    EXPECT_EQ(c.table(), table) << name << " of " << raw;
    EXPECT_EQ(c.key(), "x1") << name << " does not name the record's key; stored data: " << raw;
    EXPECT_THAT(c.what(), HasSubstr(table)) << name;
  }
}

TEST(BadInput, CorruptExecutionDataOnDynamoDBLocalIsCorruptRecordOnEveryReadPath) {
  DynamoDBLocal db;
  for (const char* raw : kBrokenData) {
    db.put("executions", {{"id", {{"S", "x1"}}}, {"data", {{"S", raw}}}, {"version", {{"N", "1"}}}});
    expect_corrupt_on_every_read(db.store(), db.table("executions"), raw);
  }
  // DynamoDB's own ways to be wrong: `data` of another attribute type, or absent.
  for (bj::object item : {bj::object{{"id", {{"S", "x1"}}}, {"data", {{"N", "5"}}}, {"version", {{"N", "1"}}}},
                          bj::object{{"id", {{"S", "x1"}}}, {"version", {{"N", "1"}}}}}) {
    db.put("executions", item);
    expect_corrupt_on_every_read(db.store(), db.table("executions"), bj::serialize(item));
  }
}

TEST(BadInput, CorruptExecutionDataInSqliteIsCorruptRecordOnEveryReadPath) {
  TempDir file;
  SqliteStore store(file.file("harel.db"));
  Execution e = new_execution("x1");
  store.save(e);
  for (const char* raw : kBrokenData) {
    sqlite_exec(file.file("harel.db"), "UPDATE executions SET data = ?1 WHERE id = 'x1'", raw);
    expect_corrupt_on_every_read(store, "executions", raw);
  }
}

TEST(BadInput, CorruptRelayItemsOnDynamoDBLocalNameTheirTableAndKey) {
  DynamoDBLocal db;
  db.put("outbox", {{"seq", {{"N", "7"}}}, {"target_id", {{"NULL", true}}}, {"event", {{"S", "{\"id\": 5}"}}}});
  db.put("spawns", {{"seq", {{"N", "3"}}},
                    {"parent_id", {{"S", "x1"}}},
                    {"child_id", {{"S", "c"}}},
                    {"root_path", {{"S", "R"}}},
                    {"context", {{"S", "[1]"}}}});
  db.put("trace", {{"execution_id", {{"S", "x1"}}}, {"idx", {{"N", "0"}}}, {"entry", {{"S", "nope"}}}});
  auto c = thrown<CorruptRecord>([&] { db.store().pending_outbox(); });
  EXPECT_EQ(c.table(), db.table("outbox"));
  EXPECT_EQ(c.key(), "7");
  c = thrown<CorruptRecord>([&] { db.store().pending_spawns(); });
  EXPECT_EQ(c.table(), db.table("spawns"));
  EXPECT_EQ(c.key(), "3");
  c = thrown<CorruptRecord>([&] { db.store().read_trace("x1"); });
  EXPECT_EQ(c.table(), db.table("trace"));
  EXPECT_EQ(c.key(), "x1/0");
}

// ------------------------------------------------------------------ DynamoDB's limits, at the boundary

// An execution whose executions-table item is exactly `bytes` as the store's
// pre-send check measures it (attribute names + string values + digits + 1
// for the one-digit version).
Execution execution_of_item_size(const std::string& id, std::size_t bytes) {
  Execution e = new_execution(id);
  e.context["blob"] = "";
  Execution committed = e;
  committed.version = 1;
  const std::size_t fixed = std::string("id").size() + id.size() + std::string("data").size() +
                            to_json(committed).size() + std::string("version").size() + 2 +
                            std::string("definition_id").size() + e.definition_id.size();
  e.context["blob"] = std::string(bytes - fixed, 'x');
  return e;
}

TEST(BadInput, ItemSizeLimitIsExactly400KBAgainstTheRealServer) {
  DynamoDBLocal db;
  Execution over = execution_of_item_size("over", 400 * 1024 + 1);
  const auto e = thrown<InvalidArgument>([&] { db.store().save(over); });
  EXPECT_THAT(e.what(), AllOf(HasSubstr("400 KB"), HasSubstr("'over'"), HasSubstr("nothing was written")));
  EXPECT_EQ(over.version, 0);
  db.expect_empty();

  // The largest item the check lets through, DynamoDB accepts too. (DynamoDB
  // counts a number as 1 + digits/2 bytes, rounded up: "1" is 2 bytes.)
  Execution at = execution_of_item_size("at", 400 * 1024);
  ASSERT_NO_THROW(db.store().save(at)) << "the pre-send size check under-counts what DynamoDB counts";
  EXPECT_EQ(db.store().load("at")->context, at.context);
}

TEST(BadInput, TransactionItemLimitIsExactly100AgainstTheRealServer) {
  DynamoDBLocal db;
  auto emits = [](int n) {
    Effects fx;
    for (int i = 0; i < n; ++i) fx.emits.push_back({"t", tick("ev" + std::to_string(i))});
    return fx;
  };
  Execution e = new_execution("x1");
  const auto err = thrown<InvalidArgument>([&] { db.store().commit(e, emits(100)); });  // 1 + 100 items
  EXPECT_THAT(err.what(), AllOf(HasSubstr("101 transaction items"), HasSubstr("at most 100"), HasSubstr("'x1'")));
  EXPECT_EQ(e.version, 0);
  db.expect_empty();  // not even a seq block was reserved

  db.store().commit(e, emits(99));  // 1 + 99 = 100 items: DynamoDB Local takes it
  EXPECT_EQ(db.store().pending_outbox().size(), 99u);
}

// ------------------------------------------------------------------ ids

// Ids are limited in BYTES (DynamoDB's 2048-byte key limit), not characters.
TEST(BadInput, IdLimitsCountBytesAndCoverEveryIdOfACommit) {
  DynamoDBLocal db;
  TempDir file;
  SqliteStore sqlite(file.file("harel.db"));
  MemoryStore memory;
  std::string e_acute = "\xc3\xa9";
  std::string max_id;
  for (int i = 0; i < 1024; ++i) max_id += e_acute;  // 1024 characters, 2048 bytes
  for (ExecutionStore* store : std::initializer_list<ExecutionStore*>{&db.store(), &sqlite, &memory}) {
    Execution at_limit = new_execution(max_id);
    store->save(at_limit);
    EXPECT_EQ(store->load(max_id)->id, max_id);

    Execution over = new_execution(max_id + "x");  // 2049 bytes
    EXPECT_THAT(thrown<InvalidArgument>([&] { store->save(over); }).what(), HasSubstr("2049 bytes"));

    Execution ok = new_execution("x1");
    const std::string long_id(2049, 'i');
    std::vector<Effects> bad(6);
    bad[0].emits.push_back({long_id, tick("e")});               // target id
    bad[1].emits.push_back({"t", tick(long_id)});               // event id
    bad[2].spawns.push_back({"", "R", {}});                     // child id
    bad[3].timers.push_back(TimerOp::schedule("", 1));          // timer path
    bad[4].timers.push_back(TimerOp::cancel(long_id));          // timer path
    bad[5].processed_event_id = "";                             // dedupe mark
    for (const Effects& fx : bad) {
      EXPECT_THROW(store->commit(ok, fx), InvalidArgument);
      EXPECT_EQ(ok.version, 0);
    }
    EXPECT_FALSE(store->load("x1"));
    EXPECT_TRUE(store->pending_outbox().empty());
    EXPECT_TRUE(store->pending_spawns().empty());
    EXPECT_TRUE(store->due_timers(1e12).empty());
  }
  EXPECT_EQ(db.count("counters"), 0u);  // validation came before any seq reservation
}

// ------------------------------------------------------------------ table prefix

TEST(BadInput, AnInvalidPrefixFailsBeforeAnyConnectionIsTried) {
  DynamoDBConnect connect;
  connect.endpoint_url = "http://127.0.0.1:1";  // nothing listens: create would retry for 10 s
  connect.store.prefix = "no spaces";
  const auto started = std::chrono::steady_clock::now();
  EXPECT_THAT(thrown<InvalidArgument>([&] { DynamoDBStore::create(connect); }).what(), HasSubstr("'no spaces'"));
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(1));
}

// create() builds its HTTP client from DynamoDBConnect::http: an unusable
// option fails at once, before any connection is tried, on both stores.
TEST(BadInput, UnusableHttpOptionsFailCreateBeforeAnyConnectionIsTried) {
  DynamoDBConnect connect;
  connect.endpoint_url = "http://127.0.0.1:1";  // nothing listens: create would retry for 10 s
  connect.http.max_connections = 0;
  const auto started = std::chrono::steady_clock::now();
  EXPECT_THAT(thrown<InvalidArgument>([&] { DynamoDBStore::create(connect); }).what(), HasSubstr("max_connections"));
  boost::asio::io_context io;
  std::future<std::unique_ptr<AsyncDynamoDBStore>> created =
      AsyncDynamoDBStore::async_create(io.get_executor(), connect, boost::asio::use_future);
  io.run();
  EXPECT_THAT(thrown<InvalidArgument>([&] { created.get(); }).what(), HasSubstr("max_connections"));
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(1));
}

// ------------------------------------------------------------------ cursors

std::string b64(const std::string& text) { return util::base64url_encode(text); }

TEST(BadInput, TamperedCursorsAreInvalidCursorOnEveryStore) {
  DynamoDBLocal db;
  TempDir file;
  SqliteStore sqlite(file.file("harel.db"));
  MemoryStore memory;
  for (ExecutionStore* s : std::initializer_list<ExecutionStore*>{&db.store(), &sqlite, &memory})
    for (int i = 0; i < 3; ++i) {
      Execution e = new_execution("x" + std::to_string(i));
      s->save(e);
    }
  ListQuery one;
  one.limit = 1;
  const std::string dynamo_cursor = *db.store().list_executions(one).next_cursor;
  const std::string id_cursor = *sqlite.list_executions(one).next_cursor;

  const std::vector<std::string> dynamo_bad = {
      b64(R"({"seq": {"N": "1"}})"),                          // a key of another table
      b64("not json"), b64(R"([{"id": {"S": "x1"}}])"),       // non-JSON, a JSON array
      b64(R"({"id": {"N": "1"}})"), b64(R"({"id": {"S": ""}})"),  // wrong type, empty id
      b64(R"({"id": {"S": "x1"}, "extra": {"S": "y"}})"),     // more than the key
      b64(R"({"id": "x1"})"),                                 // not an attribute value
      id_cursor,                                              // SQLite's cursor
      dynamo_cursor.substr(0, dynamo_cursor.size() / 2),     // cut short
      "!!" + dynamo_cursor,
  };
  for (const auto& cursor : dynamo_bad) {
    ListQuery q;
    q.cursor = cursor;
    EXPECT_THROW(db.store().list_executions(q), InvalidCursor) << cursor;
  }
  const std::vector<std::string> id_bad = {
      dynamo_cursor,  // DynamoDB's cursor
      b64(R"({"after": 5})"), b64(R"({"after": ""})"), b64(R"(["after", "x1"])"), b64(R"({"after": "x1", "y": 1})"),
      b64("{\"after\": \"x1\"} trailing"), id_cursor.substr(0, id_cursor.size() - 3),
  };
  for (ExecutionStore* s : std::initializer_list<ExecutionStore*>{&sqlite, &memory})
    for (const auto& cursor : id_bad) {
      ListQuery q;
      q.cursor = cursor;
      EXPECT_THROW(s->list_executions(q), InvalidCursor) << cursor;
    }
  // Well-formed cursors for an id that does not exist are fine: listing resumes after it.
  ListQuery q;
  q.cursor = b64(R"({"id": {"S": "nobody"}})");
  EXPECT_NO_THROW(db.store().list_executions(q));
}

// ------------------------------------------------------------------ malformed answers

dynamodb::HttpClientOptions two_attempts() {
  dynamodb::HttpClientOptions o;
  o.retry.max_attempts = 2;
  o.retry.base_delay = std::chrono::milliseconds(1);
  o.retry.max_backoff = std::chrono::milliseconds(2);
  o.request_timeout = std::chrono::milliseconds(2000);
  return o;
}

// One load() through a DynamoDBStore whose client talks to `url`.
std::exception_ptr load_through(const std::string& url, const std::optional<dynamodb::Credentials>& creds = {}) {
  boost::asio::io_context io;
  auto client = std::make_shared<dynamodb::HttpDynamoClient>(
      io.get_executor(), dynamodb::resolve_settings({url, "us-east-1", {}, creds}), two_attempts());
  DynamoDBStore store(client, {.prefix = "p"});
  try {
    store.load("x1");
  } catch (...) {
    return std::current_exception();
  }
  return nullptr;
}

template <class E>
E error_as(const std::exception_ptr& error) {
  try {
    if (error) std::rethrow_exception(error);
  } catch (const E& e) {
    return e;
  } catch (const std::exception& other) {
    throw std::runtime_error(std::string("unexpected error type: ") + other.what());
  }
  throw std::runtime_error("no error");
}

TEST(BadInput, MalformedSuccessAnswersAreRetriedThenAMalformedResponseTransportError) {
  const std::string cut_short_json = R"({"Item":{"id":{"S":"x1"},"data":{"S":"{\"id)";
  for (const std::string& body : {cut_short_json, std::string("OK"), std::string("[1,2]")}) {
    FakeServer server;
    server.script({FakeServer::respond(200, body), FakeServer::respond(200, body)});
    const auto e = error_as<TransportError>(load_through(server.url()));
    EXPECT_EQ(e.code(), "MalformedResponse") << body;
    EXPECT_TRUE(e.retryable());
    EXPECT_EQ(server.requests().size(), 2u) << "retried, as a garbled answer may heal";
  }
}

TEST(BadInput, AnHtml502PageIsARetryableDynamoErrorWithAReadableExcerpt) {
  FakeServer server;
  const std::string page = "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>nginx</body></html>";
  server.script({FakeServer::respond(502, page), FakeServer::respond(502, page)});
  const auto e = error_as<DynamoError>(load_through(server.url()));
  EXPECT_EQ(e.code(), "HTTP502");
  EXPECT_EQ(e.http_status(), 502);
  EXPECT_TRUE(e.retryable());
  EXPECT_THAT(e.what(), HasSubstr("502 Bad Gateway"));
  EXPECT_EQ(server.requests().size(), 2u);
}

std::string http_answer(const std::string& status_line, const std::string& content_type, const std::string& body,
                        std::size_t content_length) {
  return status_line + "\r\nContent-Type: " + content_type + "\r\nContent-Length: " + std::to_string(content_length) +
         "\r\nConnection: close\r\n\r\n" + body;
}

TEST(BadInput, AnswersThatAreNotDynamoDBsAreTypedTransportErrors) {
  struct Case {
    const char* what;
    std::string answer;
  };
  const std::string html = "<html><body>Please sign in to the captive portal</body></html>";
  const Case cases[] = {
      {"wrong content type, HTML body", http_answer("HTTP/1.1 200 OK", "text/html", html, html.size())},
      {"body cut short", http_answer("HTTP/1.1 200 OK", "application/x-amz-json-1.0", R"({"Item":)", 400)},
      {"not HTTP at all", "SSH-2.0-OpenSSH_9.2\r\n"},
  };
  for (const Case& c : cases) {
    RawHttpServer server(c.answer);
    const auto e = error_as<TransportError>(load_through(server.url()));
    EXPECT_THAT(e.code(), ::testing::AnyOf("MalformedResponse", "ConnectionBroken")) << c.what;
    EXPECT_TRUE(e.retryable()) << c.what;
    EXPECT_EQ(server.requests(), 2) << c.what;
  }
}

// DynamoDB's answers are read by their content, not their label: a JSON
// document under another content type is still the answer (as the AWS SDKs do).
TEST(BadInput, AWrongContentTypeOnAJsonAnswerIsTolerated) {
  const std::string body = R"({"Item":{"id":{"S":"x1"},"data":{"S":"{\"id\":\"x1\",\"definition_id\":\"d\"}"}}})";
  RawHttpServer server(http_answer("HTTP/1.1 200 OK", "text/plain", body, body.size()));
  boost::asio::io_context io;
  auto client = std::make_shared<dynamodb::HttpDynamoClient>(
      io.get_executor(), dynamodb::resolve_settings({server.url(), {}, {}, {}}), two_attempts());
  DynamoDBStore store(client, {.prefix = "p"});
  EXPECT_EQ(store.load("x1")->definition_id, "d");
}

// ------------------------------------------------------------------ credentials

TEST(BadInput, MissingCredentialsForRealAwsNameWhereTheyWereSought) {
  const auto e = thrown<InvalidArgument>([] {
    dynamodb::resolve_settings({"https://dynamodb.eu-west-1.amazonaws.com", "eu-west-1", {}, {}},
                               dynamodb::Environment::from_map({}));
  });
  EXPECT_THAT(e.what(), AllOf(HasSubstr("no AWS credentials"), HasSubstr("https://dynamodb.eu-west-1.amazonaws.com"),
                              HasSubstr("AWS_ACCESS_KEY_ID"), HasSubstr("profile 'default'")));
}

TEST(BadInput, RejectedCredentialsAreANonRetriedDynamoErrorWithoutSecrets) {
  const dynamodb::Credentials creds{"AKIDBADINPUTTEST", "SECRETBADINPUTTEST", "SESSIONBADINPUTTEST"};
  for (const char* code : {"UnrecognizedClientException", "ExpiredTokenException"}) {
    FakeServer server;
    server.script({FakeServer::respond(
        400, std::string(R"({"__type":"com.amazon.coral.service#)") + code + R"(","message":"The security token included in the request is invalid."})")});
    const auto e = error_as<DynamoError>(load_through(server.url(), creds));
    EXPECT_EQ(e.code(), code);
    EXPECT_EQ(e.http_status(), 400);
    EXPECT_FALSE(e.retryable());
    EXPECT_EQ(server.requests().size(), 1u) << "an auth failure is not retried";
    const std::string authorization = server.requests().at(0).headers.at("authorization");
    for (const std::string& secret : {creds.secret_access_key, creds.session_token,
                                      authorization.substr(authorization.rfind('=') + 1)})
      EXPECT_THAT(std::string(e.what()) + bj::serialize(e.body()), Not(HasSubstr(secret)));
  }
}

}  // namespace
}  // namespace harel::testing
