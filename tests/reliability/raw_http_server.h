// A loopback server that reads each request and answers it with the same raw
// bytes, then closes the connection: for answers no well-behaved server
// sends (a wrong content type, a body cut short, bytes that are not HTTP),
// which tests/dynamodb/fake_server.h cannot produce.
#pragma once

#include <atomic>
#include <string>
#include <thread>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

namespace harel::testing {

class RawHttpServer {
 public:
  explicit RawHttpServer(std::string answer)
      : answer_(std::move(answer)), acceptor_(io_, {boost::asio::ip::make_address("127.0.0.1"), 0}) {
    boost::asio::co_spawn(io_, accept_loop(), boost::asio::detached);
    thread_ = std::thread([this] { io_.run(); });
  }
  ~RawHttpServer() {
    io_.stop();
    thread_.join();
  }

  std::string url() const { return "http://127.0.0.1:" + std::to_string(acceptor_.local_endpoint().port()); }
  int requests() const { return requests_.load(); }

 private:
  static constexpr auto use_tuple = boost::asio::as_tuple(boost::asio::use_awaitable);

  boost::asio::awaitable<void> accept_loop() {
    for (;;) {
      auto [ec, socket] = co_await acceptor_.async_accept(use_tuple);
      if (ec) co_return;
      boost::asio::co_spawn(io_, answer(std::move(socket)), boost::asio::detached);
    }
  }

  boost::asio::awaitable<void> answer(boost::asio::ip::tcp::socket socket) {
    boost::beast::flat_buffer buffer;
    boost::beast::http::request<boost::beast::http::string_body> req;
    auto [rec, n] = co_await boost::beast::http::async_read(socket, buffer, req, use_tuple);
    if (rec) co_return;
    ++requests_;
    co_await boost::asio::async_write(socket, boost::asio::buffer(answer_), use_tuple);  // a failure ends it too
    boost::system::error_code ignored;
    socket.shutdown(boost::asio::ip::tcp::socket::shutdown_both, ignored);
  }

  std::string answer_;
  boost::asio::io_context io_;
  boost::asio::ip::tcp::acceptor acceptor_;
  std::thread thread_;
  std::atomic<int> requests_{0};
};

}  // namespace harel::testing
