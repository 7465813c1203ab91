// A loopback HTTP(S) server that answers from a script, for testing the
// DynamoDB client's transport: it records every request it reads and can
// answer, reset the connection, drop it without answering, hang, or delay.
#pragma once

#include <atomic>
#include <chrono>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>

namespace harel::testing {

namespace beast = boost::beast;

class FakeServer {
 public:
  struct Reply {
    enum class Action {
      Respond,        // send status + body (keep-alive unless close_after)
      Reset,          // read the request, then RST the connection
      Drop,           // read the request, then close without answering
      Hang,           // read the request and never answer
      RespondThenClose,  // answer WITHOUT "Connection: close", then close: an idle drop
    };
    Action action = Action::Respond;
    int status = 200;
    std::string body = "{}";
    std::chrono::milliseconds delay{0};  // before answering
  };

  struct Recorded {
    std::string method;
    std::string target;
    std::map<std::string, std::string> headers;  // lower-case names
    std::string body;
    int connection = 0;  // which accepted connection carried it (1-based)
  };

  static Reply respond(int status, std::string body, std::chrono::milliseconds delay = {}) {
    return {Reply::Action::Respond, status, std::move(body), delay};
  }
  static Reply action(Reply::Action a) { return {a, 0, "", {}}; }

  // Plain HTTP, or HTTPS with `tls` (which must outlive the server).
  explicit FakeServer(boost::asio::ssl::context* tls = nullptr)
      : tls_(tls), acceptor_(io_, {boost::asio::ip::make_address("127.0.0.1"), 0}) {
    port_ = acceptor_.local_endpoint().port();
    boost::asio::co_spawn(io_, accept_loop(), boost::asio::detached);
    thread_ = std::thread([this] { io_.run(); });
  }

  ~FakeServer() {
    io_.stop();
    thread_.join();
  }

  std::string url() const { return std::string(tls_ ? "https" : "http") + "://127.0.0.1:" + std::to_string(port_); }
  unsigned short port() const { return port_; }

  // Replies are consumed in order; when the script runs out, 200 "{}".
  void script(std::vector<Reply> replies) {
    std::lock_guard lock(mutex_);
    for (auto& r : replies) script_.push_back(std::move(r));
  }

  std::vector<Recorded> requests() const {
    std::lock_guard lock(mutex_);
    return requests_;
  }
  int connections() const { return connections_.load(); }
  int peak_in_flight() const { return peak_in_flight_.load(); }

 private:
  using tcp = boost::asio::ip::tcp;
  static constexpr auto use_tuple = boost::asio::as_tuple(boost::asio::use_awaitable);

  boost::asio::awaitable<void> accept_loop() {
    for (;;) {
      auto [ec, socket] = co_await acceptor_.async_accept(use_tuple);
      if (ec) co_return;
      const int id = ++connections_;
      boost::asio::co_spawn(io_, session(std::move(socket), id), boost::asio::detached);
    }
  }

  boost::asio::awaitable<void> session(tcp::socket socket, int id) {
    if (!tls_) {
      beast::tcp_stream stream(std::move(socket));
      co_await serve(stream, id);
      co_return;
    }
    beast::ssl_stream<beast::tcp_stream> stream(std::move(socket), *tls_);
    auto [ec] = co_await stream.async_handshake(boost::asio::ssl::stream_base::server, use_tuple);
    if (ec) co_return;  // e.g. the client rejected our certificate
    co_await serve(stream, id);
  }

  template <class Stream>
  boost::asio::awaitable<void> serve(Stream& stream, int id) {
    namespace http = beast::http;
    beast::flat_buffer buffer;
    for (;;) {
      http::request<http::string_body> req;
      auto [ec, n] = co_await http::async_read(stream, buffer, req, use_tuple);
      if (ec) co_return;
      Reply reply;
      std::string request_id;
      {
        std::lock_guard lock(mutex_);
        Recorded r{std::string(req.method_string()), std::string(req.target()), {}, req.body(), id};
        for (const auto& f : req) {
          std::string name(f.name_string());
          for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
          r.headers[name] = std::string(f.value());
        }
        requests_.push_back(std::move(r));
        request_id = "FAKE" + std::to_string(requests_.size());
        if (!script_.empty()) {
          reply = std::move(script_.front());
          script_.pop_front();
        }
      }
      auto& socket = beast::get_lowest_layer(stream).socket();
      using A = Reply::Action;
      if (reply.action == A::Reset) {
        socket.set_option(tcp::socket::linger(true, 0));
        socket.close();
        co_return;
      }
      if (reply.action == A::Drop) {
        socket.close();
        co_return;
      }
      const int now = ++in_flight_;
      for (int peak = peak_in_flight_.load(); now > peak && !peak_in_flight_.compare_exchange_weak(peak, now);) {
      }
      if (reply.action == A::Hang) reply.delay = std::chrono::hours(1);
      if (reply.delay.count() > 0) {
        boost::asio::steady_timer timer(co_await boost::asio::this_coro::executor, reply.delay);
        co_await timer.async_wait(use_tuple);
      }
      --in_flight_;
      http::response<http::string_body> res{static_cast<http::status>(reply.status), 11};
      res.set(http::field::content_type, "application/x-amz-json-1.0");
      res.set("x-amzn-RequestId", request_id);
      res.body() = reply.body;
      res.keep_alive(true);
      res.prepare_payload();
      auto [wec, written] = co_await http::async_write(stream, res, use_tuple);
      if (wec) co_return;
      if (reply.action == A::RespondThenClose) {
        socket.close();
        co_return;
      }
    }
  }

  boost::asio::ssl::context* tls_;
  boost::asio::io_context io_;
  tcp::acceptor acceptor_;
  unsigned short port_ = 0;
  std::thread thread_;
  mutable std::mutex mutex_;
  std::deque<Reply> script_;
  std::vector<Recorded> requests_;
  std::atomic<int> connections_{0};
  std::atomic<int> in_flight_{0};
  std::atomic<int> peak_in_flight_{0};
};

}  // namespace harel::testing
