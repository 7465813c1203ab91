#include "harel/dynamodb/http_client.h"

#include <openssl/ssl.h>
#include <openssl/x509_vfy.h>

#include <condition_variable>
#include <deque>
#include <mutex>
#include <optional>
#include <random>
#include <vector>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/append.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>

#include "dynamodb/protocol.h"
#include "dynamodb/request_writer.h"
#include "harel/dynamodb/errors.h"
#include "harel/errors.h"

namespace harel::dynamodb {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace ssl = asio::ssl;
namespace json = boost::json;
using tcp = asio::ip::tcp;
using Clock = std::chrono::steady_clock;

constexpr auto use_tuple = asio::as_tuple(asio::use_awaitable);
// BatchGetItem answers up to 16 MB; leave room for JSON overhead.
constexpr std::uint64_t kMaxResponseBody = 64ull << 20;

// One keep-alive HTTP(S) connection. Not thread-safe: a connection belongs to
// exactly one call at a time (the pools hand it out exclusively).
struct Connection {
  // Beast reads at most the buffer's free capacity (at least 512 bytes) per
  // receive: room for a typical answer up front saves a receive call or two
  // on every response.
  static constexpr std::size_t kReadBuffer = 16 * 1024;

  explicit Connection(asio::any_io_executor ex) : executor(std::move(ex)) { buffer.reserve(kReadBuffer); }

  void close() {
    tls.reset();
    tcp.reset();
    buffer.clear();
    open = false;
  }

  asio::any_io_executor executor;
  std::optional<beast::tcp_stream> tcp;                        // plain http
  std::optional<beast::ssl_stream<beast::tcp_stream>> tls;     // https
  beast::flat_buffer buffer;                                   // reused across responses
  bool open = false;
  Clock::time_point idle_since;
};

// Where a call gets its connection for one attempt: the shared async pool or
// a blocking call's private lane. release() takes back what acquire() gave.
class ConnectionSource {
 public:
  virtual ~ConnectionSource() = default;
  virtual asio::awaitable<Connection*> acquire() = 0;
  virtual void release(Connection* c) = 0;
};

// Gives the connection back even when the coroutine is destroyed mid-flight
// (its io_context stopped): a pool slot must never leak.
class Lease {
 public:
  Lease(ConnectionSource& source, Connection* c) : source_(source), c_(c) {}
  Lease(const Lease&) = delete;
  Lease& operator=(const Lease&) = delete;
  ~Lease() { source_.release(c_); }
  Connection& operator*() const { return *c_; }

 private:
  ConnectionSource& source_;
  Connection* c_;
};

// The async path's pool: up to `max` connections on the client's executor,
// most recently used first (warm TLS sessions, fewer idle drops). Callers
// beyond `max` queue in FIFO order. A mutex (not a strand) guards it so the
// user may run the io_context on several threads.
class AsyncPool final : public ConnectionSource {
 public:
  AsyncPool(asio::any_io_executor ex, std::size_t max) : executor_(std::move(ex)), max_(max) {}

  asio::awaitable<Connection*> acquire() override {
    if (Connection* c = try_take()) co_return c;
    co_return co_await asio::async_initiate<decltype(asio::use_awaitable), void(Connection*)>(
        [this](auto handler) {
          std::unique_lock lock(mutex_);
          Connection* c = take_locked();
          if (!c) {
            waiters_.emplace_back(std::move(handler));
            return;
          }
          lock.unlock();
          complete(std::move(handler), c);
        },
        asio::use_awaitable);
  }

  void release(Connection* c) override {
    std::unique_lock lock(mutex_);
    if (waiters_.empty()) {
      idle_.push_back(c);
      return;
    }
    Waiter next = std::move(waiters_.front());
    waiters_.pop_front();
    lock.unlock();
    complete(std::move(next), c);
  }

 private:
  using Waiter = asio::any_completion_handler<void(Connection*)>;

  template <class Handler>
  void complete(Handler&& handler, Connection* c) {
    asio::post(executor_, asio::append(std::forward<Handler>(handler), c));
  }

  Connection* try_take() {
    std::lock_guard lock(mutex_);
    return take_locked();
  }

  Connection* take_locked() {
    if (!idle_.empty()) {
      Connection* c = idle_.back();
      idle_.pop_back();
      return c;
    }
    if (all_.size() < max_) {
      all_.push_back(std::make_unique<Connection>(executor_));
      return all_.back().get();
    }
    return nullptr;
  }

  asio::any_io_executor executor_;
  std::size_t max_;
  std::mutex mutex_;
  std::vector<std::unique_ptr<Connection>> all_;
  std::vector<Connection*> idle_;
  std::deque<Waiter> waiters_;
};

// A blocking call's private world: an io_context only that call runs, and
// one keep-alive connection bound to it.
struct Lane final : ConnectionSource {
  asio::io_context io{1};
  Connection connection{io.get_executor()};

  asio::awaitable<Connection*> acquire() override { co_return &connection; }
  void release(Connection*) override {}
};

class LanePool {
 public:
  explicit LanePool(std::size_t max) : max_(max) {}

  std::unique_ptr<Lane> take() {
    std::unique_lock lock(mutex_);
    available_.wait(lock, [&] { return !idle_.empty() || created_ < max_; });
    if (!idle_.empty()) {
      std::unique_ptr<Lane> lane = std::move(idle_.back());
      idle_.pop_back();
      return lane;
    }
    ++created_;
    lock.unlock();
    return std::make_unique<Lane>();
  }

  void give_back(std::unique_ptr<Lane> lane) {
    {
      std::lock_guard lock(mutex_);
      idle_.push_back(std::move(lane));
    }
    available_.notify_one();
  }

 private:
  std::size_t max_;
  std::mutex mutex_;
  std::condition_variable available_;
  std::size_t created_ = 0;
  std::vector<std::unique_ptr<Lane>> idle_;
};

enum class Stage { Resolve, Connect, Handshake, Exchange };

// The result of one attempt at the HTTP level.
struct Exchange {
  beast::error_code ec;
  Stage stage = Stage::Resolve;
  int status = 0;
  bool keep_alive = false;
  std::string body;
  std::string request_id;  // kept for error answers only: a success never reports it
  std::string error_type;
};

// Reads one response straight into an Exchange, keeping only the two
// headers a call needs: a generic response parser would allocate and index
// every header field, on every request.
class ResponseReader final : public http::basic_parser<false> {
 public:
  explicit ResponseReader(Exchange& x) : x_(x) { body_limit(kMaxResponseBody); }

 private:
  void on_request_impl(http::verb, beast::string_view, beast::string_view, int, beast::error_code&) override {}
  void on_response_impl(int code, beast::string_view, int, beast::error_code&) override { x_.status = code; }
  void on_field_impl(http::field, beast::string_view name, beast::string_view value, beast::error_code&) override {
    if (protocol::success_status(x_.status)) return;  // the status line came first
    if (beast::iequals(name, "x-amzn-RequestId"))
      x_.request_id.assign(value.data(), value.size());
    else if (beast::iequals(name, "x-amzn-ErrorType"))
      x_.error_type.assign(value.data(), value.size());
  }
  void on_header_impl(beast::error_code&) override {}
  void on_body_init_impl(const boost::optional<std::uint64_t>& length, beast::error_code&) override {
    if (length) x_.body.reserve(static_cast<std::size_t>(*length));  // body_limit() has bounded it
  }
  std::size_t on_body_impl(beast::string_view part, beast::error_code&) override {
    x_.body.append(part.data(), part.size());
    return part.size();
  }
  void on_chunk_header_impl(std::uint64_t, beast::string_view, beast::error_code&) override {}
  std::size_t on_chunk_body_impl(std::uint64_t, beast::string_view part, beast::error_code& ec) override {
    return on_body_impl(part, ec);
  }
  void on_finish_impl(beast::error_code&) override {}

  Exchange& x_;
};

// Errors that mean "the server closed this idle connection before reading
// our request": safe to resend on a fresh connection.
bool stale_connection_error(const beast::error_code& ec) {
  return ec == http::error::end_of_stream || ec == asio::error::eof || ec == asio::error::connection_reset ||
         ec == asio::error::broken_pipe || ec == ssl::error::stream_truncated;
}

bool certificate_error(const beast::error_code& ec) {
  return ec.category() == asio::error::get_ssl_category() &&
         ERR_GET_REASON(static_cast<unsigned long>(ec.value())) == SSL_R_CERTIFICATE_VERIFY_FAILED;
}

std::exception_ptr transport_failure(const Exchange& x, const std::string& where, FailureKind* kind) {
  const bool timeout = x.ec == beast::error::timeout;
  std::string code;
  bool retryable = true;
  *kind = timeout ? FailureKind::Timeout : FailureKind::Transient;
  switch (x.stage) {
    case Stage::Resolve:
      code = "ResolveFailed";
      break;
    case Stage::Connect:
      code = timeout ? "ConnectTimeout" : "ConnectFailed";
      break;
    case Stage::Handshake:
      code = timeout ? "ConnectTimeout" : "TlsFailed";
      if (certificate_error(x.ec)) {
        retryable = false;  // the certificate will not verify any better next time
        *kind = FailureKind::Fatal;
      }
      break;
    case Stage::Exchange:
      code = timeout ? "RequestTimeout"
             : x.ec.category() == http::make_error_code(http::error::end_of_stream).category() &&
                       x.ec != http::error::end_of_stream
                 ? "MalformedResponse"
                 : "ConnectionBroken";
      break;
  }
  static constexpr const char* kStage[] = {"resolving", "connecting to", "TLS handshake with", "request to"};
  return std::make_exception_ptr(TransportError(
      code, std::string(kStage[static_cast<int>(x.stage)]) + " " + where + " failed: " + x.ec.message(), x.ec,
      retryable));
}

double jitter() {
  thread_local std::mt19937_64 engine{std::random_device{}()};
  return std::uniform_real_distribution<double>(0.0, 1.0)(engine);
}

ssl::context make_tls_context(const TlsOptions& options) {
  ssl::context ctx(ssl::context::tls_client);
  SSL_CTX_set_min_proto_version(ctx.native_handle(), TLS1_2_VERSION);
  try {
    ctx.set_default_verify_paths();
    if (!options.ca_file.empty()) ctx.load_verify_file(options.ca_file);
    if (!options.ca_pem.empty()) ctx.add_certificate_authority(asio::buffer(options.ca_pem));
  } catch (const boost::system::system_error& e) {
    throw InvalidArgument(std::string("unusable TLS trust anchor: ") + e.what());
  }
  ctx.set_verify_mode(options.verify_peer ? ssl::verify_peer : ssl::verify_none);
  return ctx;
}

}  // namespace

class HttpDynamoClient::Impl {
 public:
  Impl(asio::any_io_executor executor, Settings settings, HttpClientOptions options)
      : executor_(std::move(executor)),
        options_(std::move(options)),
        writer_(std::move(settings), options_.user_agent),
        retry_(options_.retry),
        port_text_(std::to_string(endpoint().port)),
        where_(endpoint().host + ":" + port_text_),
        async_pool_(executor_, options_.max_connections),
        lanes_(options_.max_connections) {
    if (options_.max_connections == 0) throw InvalidArgument("HttpClientOptions::max_connections must be >= 1");
    if (endpoint().tls) tls_context_.emplace(make_tls_context(options_.tls));
  }

  const Endpoint& endpoint() const noexcept { return writer_.settings().endpoint; }

  // The one implementation of a call: attempts, interpretation, retries.
  // Runs on whatever executor the source's connections use.
  static asio::awaitable<json::value> perform(std::shared_ptr<Impl> self, std::string request,
                                              ConnectionSource& source) {
    for (int attempt = 1;; ++attempt) {
      FailureKind kind = FailureKind::Fatal;
      std::exception_ptr error;
      {
        Lease lease(source, co_await source.acquire());
        Exchange x = co_await self->attempt(*lease, request);
        if (x.ec) {
          error = transport_failure(x, self->where_, &kind);
        } else {
          protocol::Interpreted r = protocol::interpret(x.status, x.body, x.request_id, x.error_type);
          if (!r.error) {
            self->retry_.on_success(attempt);
            co_return std::move(r.response);
          }
          error = std::move(r.error);
          kind = r.kind;
        }
      }
      std::chrono::nanoseconds delay{};
      if (!self->retry_.should_retry(kind, attempt, jitter(), &delay)) std::rethrow_exception(error);
      asio::steady_timer timer(co_await asio::this_coro::executor, delay);
      co_await timer.async_wait(use_tuple);
    }
  }

  asio::any_io_executor executor_;
  HttpClientOptions options_;
  RequestWriter writer_;
  RetryPolicy retry_;
  std::string port_text_;
  std::string where_;  // host:port, for messages
  std::optional<ssl::context> tls_context_;
  AsyncPool async_pool_;
  LanePool lanes_;

 private:
  // One attempt over `c`, reconnecting first if needed. A failure on a
  // reused connection before any response byte means the server had closed
  // it while idle: resend once on a fresh connection.
  asio::awaitable<Exchange> attempt(Connection& c, const std::string& request) {
    Exchange x;
    if (c.open && Clock::now() - c.idle_since > options_.max_idle) c.close();
    for (int pass = 0; pass < 2; ++pass) {
      const bool reused = c.open;
      if (!c.open) {
        co_await connect(c, x);
        if (x.ec) {
          c.close();
          co_return x;
        }
      }
      x.stage = Stage::Exchange;
      bool got_some = false;
      if (c.tls)
        co_await round_trip(*c.tls, c, request, x, got_some);
      else
        co_await round_trip(*c.tcp, c, request, x, got_some);
      if (!x.ec) {
        if (x.keep_alive)
          c.idle_since = Clock::now();
        else
          c.close();
        co_return x;
      }
      c.close();
      if (!reused || got_some || !stale_connection_error(x.ec)) co_return x;
    }
    co_return x;
  }

  asio::awaitable<void> connect(Connection& c, Exchange& x) {
    const Endpoint& ep = endpoint();
    x.stage = Stage::Resolve;
    tcp::resolver resolver(c.executor);
    auto [rec, results] = co_await resolver.async_resolve(ep.host, port_text_, use_tuple);
    if ((x.ec = rec)) co_return;

    x.stage = Stage::Connect;
    beast::tcp_stream& lowest = tls_context_ ? beast::get_lowest_layer(c.tls.emplace(c.executor, *tls_context_))
                                             : c.tcp.emplace(c.executor);
    lowest.expires_after(options_.connect_timeout);
    auto [cec, endpoint] = co_await lowest.async_connect(results, use_tuple);
    if ((x.ec = cec)) co_return;
    lowest.socket().set_option(tcp::no_delay(true));

    if (c.tls) {
      x.stage = Stage::Handshake;
      boost::system::error_code not_ip;
      asio::ip::make_address(ep.host, not_ip);
      // SNI carries host names only (RFC 6066); IP literals are verified
      // against the certificate's IP SANs instead.
      if (not_ip && !SSL_set_tlsext_host_name(c.tls->native_handle(), ep.host.c_str())) {
        x.ec = beast::error_code(static_cast<int>(::ERR_get_error()), asio::error::get_ssl_category());
        co_return;
      }
      if (options_.tls.verify_peer) c.tls->set_verify_callback(ssl::host_name_verification(ep.host));
      auto [hec] = co_await c.tls->async_handshake(ssl::stream_base::client, use_tuple);
      if ((x.ec = hec)) co_return;
    }
    lowest.expires_never();
    c.open = true;
  }

  template <class Stream>
  asio::awaitable<void> round_trip(Stream& stream, Connection& c, const std::string& request, Exchange& x,
                                   bool& got_some) {
    beast::tcp_stream& lowest = beast::get_lowest_layer(stream);
    lowest.expires_after(options_.request_timeout);
    auto [wec, written] = co_await asio::async_write(stream, asio::buffer(request), use_tuple);
    if ((x.ec = wec)) co_return;
    ResponseReader reader(x);
    auto [rec, read] = co_await http::async_read(stream, c.buffer, reader, use_tuple);
    got_some = reader.got_some();
    if ((x.ec = rec)) co_return;
    lowest.expires_never();
    x.keep_alive = reader.keep_alive();
  }
};

HttpDynamoClient::HttpDynamoClient(asio::any_io_executor executor, Settings settings, HttpClientOptions options)
    : impl_(std::make_shared<Impl>(std::move(executor), std::move(settings), std::move(options))) {}

HttpDynamoClient::~HttpDynamoClient() = default;

json::value HttpDynamoClient::call(std::string_view operation, const json::object& request) {
  std::string wire = impl_->writer_.write(operation, request);
  std::unique_ptr<Lane> lane = impl_->lanes_.take();
  // Returned even if co_spawn throws (bad_alloc): a lost lane is a lost slot.
  struct GiveBack {
    LanePool& pool;
    std::unique_ptr<Lane>& lane;
    ~GiveBack() { pool.give_back(std::move(lane)); }
  } give_back{impl_->lanes_, lane};
  std::exception_ptr error;
  json::value response;
  asio::co_spawn(lane->io, Impl::perform(impl_, std::move(wire), *lane),
                 [&](std::exception_ptr e, json::value v) {
                   error = e;
                   response = std::move(v);
                 });
  lane->io.restart();
  lane->io.run();
  if (error) std::rethrow_exception(error);
  return response;
}

void HttpDynamoClient::do_async_call(std::string_view operation, const json::object& request, Handler handler) {
  std::string wire;
  try {
    wire = impl_->writer_.write(operation, request);
  } catch (...) {
    asio::post(impl_->executor_, asio::append(std::move(handler), std::current_exception(), json::value()));
    return;
  }
  asio::co_spawn(impl_->executor_, Impl::perform(impl_, std::move(wire), impl_->async_pool_), std::move(handler));
}

asio::any_io_executor HttpDynamoClient::executor() const { return impl_->executor_; }
const Endpoint& HttpDynamoClient::endpoint() const noexcept { return impl_->endpoint(); }
const std::string& HttpDynamoClient::region() const noexcept { return impl_->writer_.settings().region; }

}  // namespace harel::dynamodb
