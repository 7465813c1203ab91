// The transport floor (mode wire-N): what one HTTP exchange with the server
// costs on this machine before any client logic.
//
// The raw ceiling's requests are written into complete signed HTTP/1.1
// requests before the run — by RequestWriter, the HTTP client's own writer —
// and sent on N plain keep-alive sockets of the benchmark's io_context. An
// answer is read up to its Content-Length and its status checked; nothing
// is parsed, pooled, timed out or retried. What remains is what any client
// pays: the kernel's loopback TCP, the event loop's wakeups, and the least
// user-space work an exchange can have. raw-N minus wire-N is then the cost
// of the HTTP client itself (serializing, signing, Beast, JSON parsing of
// the answer), async-N minus raw-N the cost of the store.
//
// The requests are signed before the run, so they carry its start time:
// against AWS, whose signatures expire after 15 minutes, a wire run must end
// within that window (DynamoDB Local does not check signatures).
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include <boost/asio/io_context.hpp>

#include "harel/dynamodb/config.h"
#include "runner.h"

namespace harel::bench {

class WireConnections {
 public:
  // Opens `count` connections to `endpoint`, blocking (unmeasured). Raises
  // std::invalid_argument for an https:// endpoint: the floor has no TLS.
  WireConnections(boost::asio::io_context& io, const dynamodb::Endpoint& endpoint, std::size_t count);
  ~WireConnections();

  // Sends `requests` on connection `connection` one after another, each
  // once the previous answer is in, then completes. The first failure ends
  // it: a transport error, or a non-2xx answer (its status and the start of
  // its body). One exchange at a time per connection.
  void exchange(std::size_t connection, const std::vector<std::string>& requests, Done done);

 private:
  struct Connection;
  std::vector<std::unique_ptr<Connection>> connections_;
};

}  // namespace harel::bench
