#include "support/fault_proxy.h"

#include <mutex>
#include <optional>
#include <random>
#include <string_view>
#include <thread>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include "harel/dynamodb/config.h"

namespace harel::testing {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

namespace {

constexpr auto use_tuple = asio::as_tuple(asio::use_awaitable);

const char* const kNames[kFaultKinds] = {"delay", "reset", "http500", "http503", "throttling", "provisioned", "drop"};

// A canned answer for the faults that never reach the server.
http::response<http::string_body> canned(Fault fault, bool keep_alive) {
  http::status status = http::status::bad_request;
  std::string body;
  std::string type = "application/x-amz-json-1.0";
  switch (fault) {
    case Fault::Http500:
      status = http::status::internal_server_error;
      body = R"({"__type":"com.amazonaws.dynamodb.v20120810#InternalServerError","message":"injected"})";
      break;
    case Fault::Http503:  // what a load balancer answers: not DynamoDB's JSON
      status = http::status::service_unavailable;
      body = "<html><body>503 Service Temporarily Unavailable</body></html>";
      type = "text/html";
      break;
    case Fault::Throttling:
      body = R"({"__type":"com.amazonaws.dynamodb.v20120810#ThrottlingException","message":"Rate exceeded"})";
      break;
    default:
      body = R"({"__type":"com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException",)"
             R"("message":"The level of configured provisioned throughput for the table was exceeded"})";
      break;
  }
  http::response<http::string_body> res{status, 11};
  res.set(http::field::content_type, type);
  res.set("x-amzn-RequestId", "FAULTPROXY");
  res.body() = std::move(body);
  res.keep_alive(keep_alive);
  res.prepare_payload();
  return res;
}

void reset(beast::tcp_stream& stream) {
  boost::system::error_code ignored;
  stream.socket().set_option(tcp::socket::linger(true, 0), ignored);
  stream.socket().close(ignored);
}

}  // namespace

const char* fault_name(Fault fault) { return kNames[static_cast<std::size_t>(fault)]; }

std::int64_t FaultCounts::total() const {
  std::int64_t n = 0;
  for (auto c : injected) n += c;
  return n;
}

std::string FaultCounts::summary() const {
  std::string out = std::to_string(total()) + " faults in " + std::to_string(requests) + " requests:";
  for (std::size_t k = 0; k < kFaultKinds; ++k) out += std::string(" ") + kNames[k] + "=" + std::to_string(injected[k]);
  out += " (on TransactWriteItems:";
  for (std::size_t k = 0; k < kFaultKinds; ++k)
    out += std::string(" ") + kNames[k] + "=" + std::to_string(on_transactions[k]);
  return out + ")";
}

struct FaultProxy::Impl {
  Impl(const std::string& upstream_url, FaultPlan p)
      : plan(std::move(p)), rng(plan.seed), acceptor(io, {asio::ip::make_address("127.0.0.1"), 0}) {
    const auto ep = dynamodb::Endpoint::parse(upstream_url);
    upstream = *tcp::resolver(io).resolve(ep.host, std::to_string(ep.port)).begin();
    asio::co_spawn(io, accept_loop(), asio::detached);
    thread = std::thread([this] { io.run(); });
  }

  ~Impl() {
    io.stop();
    thread.join();
  }

  // The fate of the next request (nullopt: forward untouched).
  std::optional<Fault> draw(bool transaction, std::chrono::milliseconds* delay) {
    std::lock_guard lock(mutex);
    ++counts.requests;
    if (!enabled || plan.kinds.empty()) return std::nullopt;
    if (std::uniform_real_distribution<double>(0, 1)(rng) >= plan.rate) return std::nullopt;
    const Fault f = plan.kinds[std::uniform_int_distribution<std::size_t>(0, plan.kinds.size() - 1)(rng)];
    *delay = std::chrono::milliseconds(std::uniform_int_distribution<std::int64_t>(1, plan.max_delay.count())(rng));
    ++counts.injected[static_cast<std::size_t>(f)];
    if (transaction) ++counts.on_transactions[static_cast<std::size_t>(f)];
    return f;
  }

  asio::awaitable<void> accept_loop() {
    for (;;) {
      auto [ec, socket] = co_await acceptor.async_accept(use_tuple);
      if (ec) co_return;
      asio::co_spawn(io, session(beast::tcp_stream(std::move(socket))), asio::detached);
    }
  }

  // One client connection, with its own keep-alive connection upstream.
  asio::awaitable<void> session(beast::tcp_stream client) {
    std::optional<beast::tcp_stream> server;
    beast::flat_buffer client_buffer, server_buffer;
    for (;;) {
      http::request<http::string_body> req;
      auto [rec, n] = co_await http::async_read(client, client_buffer, req, use_tuple);
      if (rec) co_return;
      std::chrono::milliseconds delay{};
      const auto target = req["X-Amz-Target"];
      const bool transaction = std::string_view(target.data(), target.size()).ends_with(".TransactWriteItems");
      const std::optional<Fault> fault = draw(transaction, &delay);
      if (fault == Fault::Reset) {
        reset(client);
        co_return;
      }
      if (fault && fault != Fault::Delay && fault != Fault::DropResponse) {
        auto res = canned(*fault, req.keep_alive());
        auto [wec, w] = co_await http::async_write(client, res, use_tuple);
        if (wec || !req.keep_alive()) co_return;
        continue;
      }
      if (fault == Fault::Delay) {
        asio::steady_timer timer(client.get_executor(), delay);
        co_await timer.async_wait(use_tuple);
      }
      if (!server) {
        server.emplace(client.get_executor());
        auto [cec] = co_await server->async_connect(upstream, use_tuple);
        if (cec) co_return;  // the client sees a broken connection, as it would
      }
      http::response_parser<http::string_body> parser;
      parser.body_limit(64u << 20);
      auto [fec, f] = co_await http::async_write(*server, req, use_tuple);
      if (fec) co_return;  // closes the client too: it sees a broken connection
      auto [sec, s] = co_await http::async_read(*server, server_buffer, parser, use_tuple);
      if (sec) co_return;
      if (fault == Fault::DropResponse) {
        // The server has applied the request; its answer is lost.
        boost::system::error_code ignored;
        client.socket().shutdown(tcp::socket::shutdown_both, ignored);
        co_return;
      }
      http::response<http::string_body> res = parser.release();
      const bool keep_alive = res.keep_alive() && req.keep_alive();
      res.keep_alive(keep_alive);
      auto [wec, w] = co_await http::async_write(client, res, use_tuple);
      if (wec || !keep_alive) co_return;
    }
  }

  FaultPlan plan;
  std::mutex mutex;
  std::mt19937_64 rng;
  FaultCounts counts;
  bool enabled = true;
  asio::io_context io;
  tcp::acceptor acceptor;
  tcp::endpoint upstream;
  std::thread thread;
};

FaultProxy::FaultProxy(const std::string& upstream_url, FaultPlan plan)
    : impl_(std::make_unique<Impl>(upstream_url, std::move(plan))) {}

FaultProxy::~FaultProxy() = default;

std::string FaultProxy::url() const {
  return "http://127.0.0.1:" + std::to_string(impl_->acceptor.local_endpoint().port());
}

void FaultProxy::set_faults_enabled(bool enabled) {
  std::lock_guard lock(impl_->mutex);
  impl_->enabled = enabled;
}

FaultCounts FaultProxy::counts() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->counts;
}

}  // namespace harel::testing
