// HttpDynamoClient against loopback fake servers: the bytes it sends, how it
// interprets answers, retries, the ClientRequestToken, the connection pool,
// timeouts, TLS verification, and real overlap of async calls.
#include "harel/dynamodb/http_client.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <future>
#include <sstream>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/use_future.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include "dynamodb/fake_server.h"
#include "dynamodb/sigv4.h"
#include "harel/dynamodb/attribute_value.h"
#include "harel/dynamodb/errors.h"
#include "harel/errors.h"
#include "support/thrown.h"

namespace harel::dynamodb {
namespace {

namespace asio = boost::asio;
namespace json = boost::json;
using namespace std::chrono_literals;
using harel::testing::thrown;
using ::testing::HasSubstr;
using ::testing::MatchesRegex;
using ::testing::Not;
using testing::FakeServer;
using Action = FakeServer::Reply::Action;

constexpr const char* kKeyId = "AKIDTESTKEYID";
constexpr const char* kSecret = "SECRETtestSECRETvalue/DoNotLeak";
constexpr const char* kToken = "SESSIONtokenDoNotLeak";

Settings settings_for(const std::string& url, std::string session_token = "") {
  SettingsOverrides o;
  o.endpoint_url = url;
  o.region = "us-east-1";
  o.credentials = Credentials{kKeyId, kSecret, std::move(session_token)};
  return resolve_settings(o, Environment::from_map({}));
}

HttpClientOptions fast_options() {
  HttpClientOptions o;
  o.retry.base_delay = 1ms;
  o.retry.throttle_base_delay = 2ms;
  o.connect_timeout = 2s;
  o.request_timeout = 3s;
  return o;
}

json::object get_item_request() {
  json::object key;
  key.emplace("id", av::S("e1"));
  json::object req;
  req.emplace("TableName", "harel_executions");
  req.emplace("Key", std::move(key));
  return req;
}

std::string throttle_body() {
  return R"({"__type":"com.amazonaws.dynamodb.v20120810#ThrottlingException","message":"Rate exceeded"})";
}

class HttpClientTest : public ::testing::Test {
 protected:
  asio::io_context io;
  FakeServer server;
};

TEST_F(HttpClientTest, SendsASignedJson10Request) {
  server.script({FakeServer::respond(200, R"({"Item":{"id":{"S":"e1"},"version":{"N":"3"}}})")});
  HttpDynamoClient client(io.get_executor(), settings_for(server.url(), kToken), fast_options());
  const json::value out = client.call("GetItem", get_item_request());
  EXPECT_EQ(av::get_int(out.at("Item").as_object(), "version"), 3);

  const auto reqs = server.requests();
  ASSERT_EQ(reqs.size(), 1u);
  const auto& r = reqs[0];
  EXPECT_EQ(r.method, "POST");
  EXPECT_EQ(r.target, "/");
  EXPECT_EQ(r.headers.at("content-type"), "application/x-amz-json-1.0");
  EXPECT_EQ(r.headers.at("x-amz-target"), "DynamoDB_20120810.GetItem");
  EXPECT_EQ(r.headers.at("host"), "127.0.0.1:" + std::to_string(server.port()));
  EXPECT_EQ(r.headers.at("x-amz-security-token"), kToken);
  EXPECT_EQ(r.headers.at("content-length"), std::to_string(r.body.size()));
  EXPECT_THAT(r.headers.at("x-amz-date"), MatchesRegex("[0-9]{8}T[0-9]{6}Z"));
  EXPECT_EQ(json::parse(r.body), get_item_request());

  // The Authorization header is exactly the SigV4 signature of what arrived.
  const std::string& date = r.headers.at("x-amz-date");
  const sigv4::Header h[] = {{"content-type", r.headers.at("content-type")},
                             {"host", r.headers.at("host")},
                             {"x-amz-date", date},
                             {"x-amz-security-token", r.headers.at("x-amz-security-token")},
                             {"x-amz-target", r.headers.at("x-amz-target")}};
  const std::string hash = sigv4::sha256_hex(r.body);
  const sigv4::Signed expected =
      sigv4::sign({"POST", "/", "", h, hash}, kKeyId, sigv4::derive_key(kSecret, date.substr(0, 8), "us-east-1", "dynamodb"),
                  date, "us-east-1", "dynamodb");
  EXPECT_EQ(r.headers.at("authorization"), expected.authorization);
}

TEST_F(HttpClientTest, ErrorResponseIsATypedErrorAndNotRetried) {
  server.script({FakeServer::respond(
      400, R"({"__type":"com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException","message":"The conditional request failed"})")});
  HttpDynamoClient client(io.get_executor(), settings_for(server.url()), fast_options());
  const DynamoError e = thrown<DynamoError>([&] { client.call("PutItem", get_item_request()); });
  EXPECT_EQ(e.code(), "ConditionalCheckFailedException");
  EXPECT_EQ(e.service_message(), "The conditional request failed");
  EXPECT_EQ(e.http_status(), 400);
  EXPECT_FALSE(e.retryable());
  EXPECT_EQ(e.request_id(), "FAKE1");
  EXPECT_EQ(server.requests().size(), 1u);
}

TEST_F(HttpClientTest, ValidationAndTransactionCancellationAreNeverRetried) {
  server.script(
      {FakeServer::respond(400, R"({"__type":"com.amazon.coral.validate#ValidationException","message":"bad"})"),
       FakeServer::respond(400, R"({"__type":"com.amazonaws.dynamodb.v20120810#TransactionCanceledException",)"
                                R"("message":"cancelled","CancellationReasons":[{"Code":"ConditionalCheckFailed"}]})")});
  HttpClientOptions o = fast_options();
  o.retry.max_attempts = 5;
  HttpDynamoClient client(io.get_executor(), settings_for(server.url()), o);
  EXPECT_EQ(thrown<DynamoError>([&] { client.call("PutItem", {}); }).code(), "ValidationException");
  const DynamoError t = thrown<DynamoError>([&] { client.call("TransactWriteItems", {}); });
  EXPECT_EQ(t.code(), "TransactionCanceledException");
  EXPECT_EQ(t.body().at("CancellationReasons").as_array().size(), 1u);
  EXPECT_EQ(server.requests().size(), 2u);
}

TEST_F(HttpClientTest, ServerErrorsAndThrottlingAreRetriedThenSucceed) {
  server.script({FakeServer::respond(500, R"({"__type":"InternalServerError","message":"oops"})"),
                 FakeServer::respond(400, throttle_body()), FakeServer::respond(200, R"({"Count":7})")});
  HttpDynamoClient client(io.get_executor(), settings_for(server.url()), [] {
    HttpClientOptions o = fast_options();
    o.retry.max_attempts = 3;
    return o;
  }());
  EXPECT_EQ(client.call("Scan", {{"TableName", "t"}}).at("Count"), 7);
  EXPECT_EQ(server.requests().size(), 3u);
}

TEST_F(HttpClientTest, GivesUpAfterMaxAttemptsWithTheLastError) {
  server.script({FakeServer::respond(400, throttle_body()), FakeServer::respond(400, throttle_body()),
                 FakeServer::respond(400, throttle_body()), FakeServer::respond(200, "{}")});
  HttpDynamoClient client(io.get_executor(), settings_for(server.url()), fast_options());  // 3 attempts
  const DynamoError e = thrown<DynamoError>([&] { client.call("GetItem", get_item_request()); });
  EXPECT_EQ(e.code(), "ThrottlingException");
  EXPECT_TRUE(e.retryable());
  EXPECT_EQ(server.requests().size(), 3u);
}

TEST_F(HttpClientTest, TransactWriteItemsKeepsOneClientRequestTokenAcrossRetries) {
  // First answer lost to a reset, then a dropped response, then a 503: all
  // retried with the same token; the fourth attempt succeeds.
  server.script({FakeServer::action(Action::Reset), FakeServer::action(Action::Drop),
                 FakeServer::respond(503, "Service Unavailable"), FakeServer::respond(200, "{}")});
  HttpClientOptions o = fast_options();
  o.retry.max_attempts = 4;
  HttpDynamoClient client(io.get_executor(), settings_for(server.url()), o);
  json::object req = json::parse(R"({"TransactItems":[{"Put":{"TableName":"t","Item":{"id":{"S":"a"}}}}]})").as_object();
  EXPECT_EQ(client.call("TransactWriteItems", req), json::object());
  client.call("TransactWriteItems", req);  // a second, separate call

  const auto reqs = server.requests();
  ASSERT_EQ(reqs.size(), 5u);
  const json::value first = json::parse(reqs[0].body);
  const std::string token(first.at("ClientRequestToken").as_string());
  EXPECT_EQ(token.size(), 36u);
  for (std::size_t i = 1; i < 4; ++i) {
    EXPECT_EQ(reqs[i].body, reqs[0].body) << "attempt " << i + 1 << " must resend the same bytes";
    EXPECT_EQ(reqs[i].headers.at("authorization"), reqs[0].headers.at("authorization"));
  }
  EXPECT_NE(json::parse(reqs[4].body).at("ClientRequestToken").as_string(), token);  // fresh per call
  EXPECT_EQ(first.at("TransactItems"), req.at("TransactItems"));
  EXPECT_FALSE(req.contains("ClientRequestToken"));
}

TEST_F(HttpClientTest, KeepsConnectionsAliveAndReusesThem) {
  HttpDynamoClient client(io.get_executor(), settings_for(server.url()), fast_options());
  for (int i = 0; i < 5; ++i) client.call("GetItem", get_item_request());
  EXPECT_EQ(server.requests().size(), 5u);
  EXPECT_EQ(server.connections(), 1);
}

TEST_F(HttpClientTest, ReplacesAConnectionTheServerClosedWithoutSpendingARetry) {
  server.script({{Action::RespondThenClose, 200, "{}", {}}});
  HttpClientOptions o = fast_options();
  o.retry.max_attempts = 1;  // no retries: the replacement must be transparent
  HttpDynamoClient client(io.get_executor(), settings_for(server.url()), o);
  client.call("GetItem", get_item_request());
  std::this_thread::sleep_for(50ms);  // let the close arrive
  EXPECT_NO_THROW(client.call("GetItem", get_item_request()));
  EXPECT_EQ(server.connections(), 2);
  EXPECT_EQ(server.requests().size(), 2u);
}

TEST_F(HttpClientTest, RequestTimeoutIsARetryableTransportError) {
  server.script({FakeServer::action(Action::Hang)});
  HttpClientOptions o = fast_options();
  o.request_timeout = 200ms;
  o.retry.max_attempts = 1;
  HttpDynamoClient client(io.get_executor(), settings_for(server.url()), o);
  const auto start = std::chrono::steady_clock::now();
  const TransportError e = thrown<TransportError>([&] { client.call("GetItem", get_item_request()); });
  EXPECT_EQ(e.code(), "RequestTimeout");
  EXPECT_TRUE(e.retryable());
  EXPECT_EQ(e.http_status(), 0);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 2s);
}

TEST_F(HttpClientTest, TimedOutAttemptIsRetried) {
  server.script({FakeServer::action(Action::Hang), FakeServer::respond(200, R"({"ok":1})")});
  HttpClientOptions o = fast_options();
  o.request_timeout = 200ms;
  HttpDynamoClient client(io.get_executor(), settings_for(server.url()), o);
  EXPECT_EQ(client.call("GetItem", get_item_request()).at("ok"), 1);
  EXPECT_EQ(server.requests().size(), 2u);
}

TEST(HttpClient, ConnectionRefusedIsRetriedThenReported) {
  unsigned short port;
  {
    asio::io_context tmp;
    asio::ip::tcp::acceptor a(tmp, {asio::ip::make_address("127.0.0.1"), 0});
    port = a.local_endpoint().port();
  }  // closed: nothing listens there now
  asio::io_context io;
  HttpDynamoClient client(io.get_executor(), settings_for("http://127.0.0.1:" + std::to_string(port)),
                          fast_options());
  const TransportError e = thrown<TransportError>([&] { client.call("GetItem", get_item_request()); });
  EXPECT_EQ(e.code(), "ConnectFailed");
  EXPECT_TRUE(e.retryable());
  EXPECT_EQ(e.error().value(), ECONNREFUSED);
}

TEST_F(HttpClientTest, CredentialsNeverAppearInErrors) {
  server.script({FakeServer::respond(403, R"({"__type":"UnrecognizedClientException","message":"bad token"})")});
  HttpDynamoClient client(io.get_executor(), settings_for(server.url(), kToken), fast_options());
  const DynamoError e = thrown<DynamoError>([&] { client.call("GetItem", get_item_request()); });
  const std::string authorization = server.requests().at(0).headers.at("authorization");
  const std::string signature = authorization.substr(authorization.rfind('=') + 1);
  for (const std::string& what : {std::string(e.what()), json::serialize(e.body())}) {
    EXPECT_THAT(what, Not(HasSubstr(kSecret)));
    EXPECT_THAT(what, Not(HasSubstr(kToken)));
    EXPECT_THAT(what, Not(HasSubstr(signature)));
  }
}

// They are written into the request head verbatim: a line break would let
// them add headers of their own.
TEST_F(HttpClientTest, HeaderBoundSettingsWithControlCharactersAreRejected) {
  HttpClientOptions agent = fast_options();
  agent.user_agent = "harel\r\nX-Evil: 1";
  EXPECT_THROW(HttpDynamoClient(io.get_executor(), settings_for(server.url()), agent), InvalidArgument);
  try {
    HttpDynamoClient(io.get_executor(), settings_for(server.url(), "tok\nen-secret"), fast_options());
    FAIL() << "expected InvalidArgument";
  } catch (const InvalidArgument& e) {
    EXPECT_THAT(e.what(), HasSubstr("session token"));
    EXPECT_THAT(e.what(), Not(HasSubstr("secret")));
  }
  EXPECT_TRUE(server.requests().empty());
}

TEST_F(HttpClientTest, InvalidOperationIsRejectedBeforeSending) {
  HttpDynamoClient client(io.get_executor(), settings_for(server.url()), fast_options());
  EXPECT_THROW(client.call("Get\r\nItem", {}), InvalidArgument);
  std::future<json::value> f = client.async_call("Bad Op", {}, asio::use_future);
  io.run();
  EXPECT_THROW(f.get(), InvalidArgument);
  EXPECT_TRUE(server.requests().empty());
}

TEST_F(HttpClientTest, AsyncCallsSupportEveryCompletionStyle) {
  server.script({FakeServer::respond(200, R"({"n":1})"), FakeServer::respond(200, R"({"n":2})"),
                 FakeServer::respond(400, R"({"__type":"x#ResourceNotFoundException","message":"no table"})")});
  HttpDynamoClient client(io.get_executor(), settings_for(server.url()), fast_options());
  const json::object req = get_item_request();
  json::value from_callback;
  std::future<json::value> from_future;
  std::string coroutine_error;

  client.async_call("GetItem", req, [&](std::exception_ptr e, json::value v) {
    ASSERT_FALSE(e);
    from_callback = std::move(v);
    from_future = client.async_call("GetItem", req, asio::use_future);
    asio::co_spawn(
        io,
        [&]() -> asio::awaitable<void> {
          try {
            co_await client.async_call("GetItem", req, asio::use_awaitable);
          } catch (const DynamoError& err) {
            coroutine_error = err.code();
          }
        },
        asio::detached);
  });
  io.run();
  EXPECT_EQ(from_callback.at("n"), 1);
  EXPECT_EQ(from_future.get().at("n"), 2);
  EXPECT_EQ(coroutine_error, "ResourceNotFoundException");
}

TEST_F(HttpClientTest, ManyAsyncCallsOverlapOnOneThread) {
  constexpr int kCalls = 8;
  std::vector<FakeServer::Reply> replies;
  for (int i = 0; i < kCalls; ++i) replies.push_back(FakeServer::respond(200, R"({"ok":true})", 300ms));
  server.script(std::move(replies));
  HttpClientOptions o = fast_options();
  o.max_connections = kCalls;
  HttpDynamoClient client(io.get_executor(), settings_for(server.url()), o);
  int done = 0;
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < kCalls; ++i) {
    client.async_call("GetItem", get_item_request(), [&](std::exception_ptr e, json::value v) {
      EXPECT_FALSE(e);
      EXPECT_EQ(v.at("ok"), true);
      ++done;
    });
  }
  io.run();  // this thread only
  const auto elapsed = std::chrono::steady_clock::now() - start;
  EXPECT_EQ(done, kCalls);
  EXPECT_EQ(server.peak_in_flight(), kCalls);  // all were at the server at once
  EXPECT_LT(elapsed, 1200ms);                   // sequential would take 2.4 s
}

TEST_F(HttpClientTest, PoolSizeBoundsConnectionsAndQueuesTheRest) {
  constexpr int kCalls = 6;
  std::vector<FakeServer::Reply> replies;
  for (int i = 0; i < kCalls; ++i) replies.push_back(FakeServer::respond(200, "{}", 50ms));
  server.script(std::move(replies));
  HttpClientOptions o = fast_options();
  o.max_connections = 2;
  HttpDynamoClient client(io.get_executor(), settings_for(server.url()), o);
  int done = 0;
  for (int i = 0; i < kCalls; ++i)
    client.async_call("GetItem", get_item_request(), [&](std::exception_ptr e, json::value) {
      EXPECT_FALSE(e);
      ++done;
    });
  io.run();
  EXPECT_EQ(done, kCalls);
  EXPECT_EQ(server.connections(), 2);
  EXPECT_EQ(server.peak_in_flight(), 2);
}

TEST_F(HttpClientTest, AsyncRetriesUseTheSamePolicyAndToken) {
  server.script({FakeServer::action(Action::Reset), FakeServer::respond(200, "{}")});
  HttpDynamoClient client(io.get_executor(), settings_for(server.url()), fast_options());
  auto f = client.async_call("TransactWriteItems", {{"TransactItems", json::array()}}, asio::use_future);
  io.run();
  EXPECT_EQ(f.get(), json::object());
  const auto reqs = server.requests();
  ASSERT_EQ(reqs.size(), 2u);
  EXPECT_EQ(reqs[0].body, reqs[1].body);
}

TEST_F(HttpClientTest, BlockingCallsFromManyThreads) {
  HttpClientOptions o = fast_options();
  o.max_connections = 3;
  HttpDynamoClient client(io.get_executor(), settings_for(server.url()), o);
  std::vector<std::thread> threads;
  std::atomic<int> ok{0};
  for (int t = 0; t < 6; ++t)
    threads.emplace_back([&] {
      for (int i = 0; i < 10; ++i)
        if (client.call("GetItem", get_item_request()).is_object()) ++ok;
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(ok.load(), 60);
  EXPECT_LE(server.connections(), 3);
}

// Client-side CPU per call (the calling thread's CPU time: the fake server
// runs on another thread). Reported for inspection; the bound is loose so
// that only a gross regression (e.g. re-deriving keys, reconnecting per
// call) fails it.
double thread_cpu_us() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e6 + static_cast<double>(ts.tv_nsec) / 1e3;
}

TEST_F(HttpClientTest, CpuCostPerCall) {
  constexpr int kCalls = 2000;
  std::vector<FakeServer::Reply> replies(
      2 * kCalls + 2, FakeServer::respond(200, R"({"Item":{"id":{"S":"e1"},"version":{"N":"3"},"data":{"S":")" +
                                                   std::string(400, 'x') + R"("}}})"));
  server.script(std::move(replies));
  HttpDynamoClient client(io.get_executor(), settings_for(server.url()), fast_options());
  const json::object req = get_item_request();
  client.call("GetItem", req);  // connect outside the measurement
  double start = thread_cpu_us();
  for (int i = 0; i < kCalls; ++i) client.call("GetItem", req);
  const double blocking = (thread_cpu_us() - start) / kCalls;

  client.async_call("GetItem", req, [](std::exception_ptr, json::value) {});
  io.run();
  io.restart();
  int done = 0;
  std::function<void(std::exception_ptr, json::value)> next = [&](std::exception_ptr e, json::value) {
    ASSERT_FALSE(e);
    if (++done < kCalls) client.async_call("GetItem", req, next);
  };
  start = thread_cpu_us();
  client.async_call("GetItem", req, next);
  io.run();
  const double async = (thread_cpu_us() - start) / kCalls;
  std::printf("client CPU per GetItem: blocking %.1f us, async %.1f us\n", blocking, async);
  EXPECT_EQ(done, kCalls);
  EXPECT_LT(blocking, 1000.0);
  EXPECT_LT(async, 1000.0);
}

// ---- TLS ----

// A self-signed certificate for 127.0.0.1, made with the openssl CLI.
class TlsFiles {
 public:
  explicit TlsFiles(const std::string& san) {
    std::string templ = (std::filesystem::temp_directory_path() / "harel-tls-XXXXXX").string();
    dir_ = ::mkdtemp(templ.data());
    const std::string cmd = "openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=harel-test -keyout '" +
                            key() + "' -out '" + cert() + "' -addext 'subjectAltName=" + san + "' 2>/dev/null";
    if (std::system(cmd.c_str()) != 0) throw std::runtime_error("openssl req failed");
  }
  ~TlsFiles() { std::filesystem::remove_all(dir_); }
  std::string cert() const { return (dir_ / "cert.pem").string(); }
  std::string key() const { return (dir_ / "key.pem").string(); }
  std::string cert_pem() const {
    std::ifstream in(cert());
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }
  asio::ssl::context server_context() const {
    asio::ssl::context ctx(asio::ssl::context::tls_server);
    ctx.use_certificate_chain_file(cert());
    ctx.use_private_key_file(key(), asio::ssl::context::pem);
    return ctx;
  }

 private:
  std::filesystem::path dir_;
};

TEST(HttpClientTls, SelfSignedServerIsRejectedByDefault) {
  TlsFiles files("IP:127.0.0.1");
  asio::ssl::context ctx = files.server_context();
  FakeServer server(&ctx);
  asio::io_context io;
  HttpDynamoClient client(io.get_executor(), settings_for(server.url()), fast_options());
  const TransportError e = thrown<TransportError>([&] { client.call("GetItem", get_item_request()); });
  EXPECT_EQ(e.code(), "TlsFailed");
  EXPECT_FALSE(e.retryable());  // not retried: it would fail the same way
  EXPECT_THAT(e.what(), HasSubstr("certificate verify failed"));
  EXPECT_TRUE(server.requests().empty());
  EXPECT_EQ(server.connections(), 1);
}

TEST(HttpClientTls, TrustedCaSucceedsAndConnectionIsReused) {
  TlsFiles files("IP:127.0.0.1");
  asio::ssl::context ctx = files.server_context();
  FakeServer server(&ctx);
  server.script({FakeServer::respond(200, R"({"tls":true})")});
  asio::io_context io;
  HttpClientOptions o = fast_options();
  o.tls.ca_pem = files.cert_pem();
  HttpDynamoClient client(io.get_executor(), settings_for(server.url()), o);
  EXPECT_EQ(client.call("GetItem", get_item_request()).at("tls"), true);
  client.call("GetItem", get_item_request());
  auto f = client.async_call("GetItem", get_item_request(), asio::use_future);
  io.run();
  f.get();
  EXPECT_EQ(server.requests().size(), 3u);
  EXPECT_EQ(server.connections(), 2);  // one blocking lane, one async pool connection
}

TEST(HttpClientTls, TrustedCaWithWrongHostNameIsRejected) {
  TlsFiles files("DNS:not-this-host.example");
  asio::ssl::context ctx = files.server_context();
  FakeServer server(&ctx);
  asio::io_context io;
  HttpClientOptions o = fast_options();
  o.tls.ca_file = files.cert();
  HttpDynamoClient client(io.get_executor(), settings_for(server.url()), o);
  EXPECT_EQ(thrown<TransportError>([&] { client.call("GetItem", get_item_request()); }).code(), "TlsFailed");
  EXPECT_TRUE(server.requests().empty());
}

TEST(HttpClientTls, UnreadableCaFileIsAnInvalidArgument) {
  asio::io_context io;
  HttpClientOptions o;
  o.tls.ca_file = "/nonexistent/ca.pem";
  EXPECT_THROW(HttpDynamoClient(io.get_executor(), settings_for("https://127.0.0.1:1"), o), InvalidArgument);
}

}  // namespace
}  // namespace harel::dynamodb
