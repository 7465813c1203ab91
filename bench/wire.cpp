#include "wire.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <optional>
#include <stdexcept>
#include <string_view>

#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/write.hpp>

namespace harel::bench {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;

struct WireConnections::Connection {
  explicit Connection(asio::io_context& io) : socket(io) {}

  // Sends requests[k..] in order.
  void send(const std::vector<std::string>& requests, std::size_t k, Done done) {
    if (broken) return done(error("the connection broke in an earlier operation"));
    if (k == requests.size()) return done(nullptr);
    asio::async_write(socket, asio::buffer(requests[k]),
                      [this, &requests, k, done = std::move(done)](boost::system::error_code ec, std::size_t) mutable {
                        if (ec) return break_off(done, "sending: " + ec.message());
                        have = 0;
                        need = 0;
                        receive(requests, k, std::move(done));
                      });
  }

  // Reads the answer to requests[k], then sends the next one.
  void receive(const std::vector<std::string>& requests, std::size_t k, Done done) {
    if (buffer.size() - have < 4096) buffer.resize(buffer.size() * 2);
    socket.async_read_some(
        asio::buffer(buffer.data() + have, buffer.size() - have),
        [this, &requests, k, done = std::move(done)](boost::system::error_code ec, std::size_t n) mutable {
          if (ec) return break_off(done, "reading: " + ec.message());
          have += n;
          if (!need) {
            const std::string_view text(buffer.data(), have);
            const std::size_t head_end = text.find("\r\n\r\n");
            if (head_end == std::string_view::npos) return receive(requests, k, std::move(done));
            const std::optional<std::size_t> length = content_length(text.substr(0, head_end));
            if (!length) return break_off(done, "an answer without a valid Content-Length");
            need = head_end + 4 + *length;
          }
          if (have < need) return receive(requests, k, std::move(done));
          if (have > need) return break_off(done, "more bytes than one answer");
          const std::string_view answer(buffer.data(), have);
          if (!answer.starts_with("HTTP/1.1 2"))
            return done(error(std::string(answer.substr(0, answer.find("\r\n"))) + ": " +
                              std::string(answer.substr(answer.find("\r\n\r\n") + 4, 200))));
          send(requests, k + 1, std::move(done));
        });
  }

  // The Content-Length field of an answer's head, if it has one and its
  // value is a number (between optional blanks).
  static std::optional<std::size_t> content_length(std::string_view head) {
    constexpr std::string_view kName = "content-length:";
    const auto blank = [](char c) { return c == ' ' || c == '\t'; };
    for (std::size_t line = head.find("\r\n"); line != std::string_view::npos; line = head.find("\r\n", line + 2)) {
      std::string_view field = head.substr(line + 2);
      field = field.substr(0, field.find("\r\n"));
      const bool match = field.size() >= kName.size() &&
                         std::equal(kName.begin(), kName.end(), field.begin(),
                                    [](char name, char c) { return std::tolower(static_cast<unsigned char>(c)) == name; });
      if (!match) continue;
      field.remove_prefix(kName.size());
      while (!field.empty() && blank(field.front())) field.remove_prefix(1);
      while (!field.empty() && blank(field.back())) field.remove_suffix(1);
      std::size_t length = 0;
      const auto [end, ec] = std::from_chars(field.data(), field.data() + field.size(), length);
      if (ec != std::errc() || end != field.data() + field.size()) return std::nullopt;
      return length;
    }
    return std::nullopt;
  }

  static std::exception_ptr error(const std::string& what) {
    return std::make_exception_ptr(std::runtime_error("wire: " + what));
  }

  // A failure that leaves the connection out of step with the answers (bytes
  // unread or unaccounted for): it is closed, and later operations on it fail
  // at once rather than read a stale answer as theirs.
  void break_off(Done& done, const std::string& what) {
    broken = true;
    boost::system::error_code ignored;
    socket.close(ignored);
    done(error(what));
  }

  tcp::socket socket;
  std::vector<char> buffer = std::vector<char>(16 * 1024);
  std::size_t have = 0;  // bytes of the current answer read
  std::size_t need = 0;  // its whole size, once its head is in
  bool broken = false;
};

WireConnections::WireConnections(asio::io_context& io, const dynamodb::Endpoint& endpoint, std::size_t count) {
  if (endpoint.tls) throw std::invalid_argument("wire-N modes need an http:// endpoint (the floor has no TLS)");
  tcp::resolver resolver(io);
  const auto addresses = resolver.resolve(endpoint.host, std::to_string(endpoint.port));
  for (std::size_t i = 0; i < count; ++i) {
    auto c = std::make_unique<Connection>(io);
    asio::connect(c->socket, addresses);
    c->socket.set_option(tcp::no_delay(true));
    connections_.push_back(std::move(c));
  }
}

WireConnections::~WireConnections() = default;

void WireConnections::exchange(std::size_t connection, const std::vector<std::string>& requests, Done done) {
  connections_.at(connection)->send(requests, 0, std::move(done));
}

}  // namespace harel::bench
