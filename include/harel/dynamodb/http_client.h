// HttpDynamoClient: the DynamoClient that talks to DynamoDB over HTTP(S).
//
// DynamoDB's JSON 1.0 protocol over HTTP/1.1 (Boost.Beast) with TLS from
// OpenSSL, every request signed with SigV4. What it does for the caller:
//
// * Connections are kept alive and reused from a pool of at most
//   max_connections per path (see below); a call waits for a free one when
//   all are busy. A pooled connection the server closed meanwhile is
//   replaced transparently: the request is re-sent on a fresh connection
//   without counting as a retry.
// * HTTPS verifies the certificate chain against the system trust store (plus
//   TlsOptions' extra CA) and the host name, and sends SNI. Verification can
//   be disabled only explicitly.
// * Every attempt is bounded: connect_timeout for the TCP connect and the TLS
//   handshake, request_timeout for writing the request and reading the
//   answer. A timeout is a retryable TransportError. (Name resolution, done
//   only for a new connection, is bounded by the system resolver's own
//   timeouts.)
// * Failures are retried per RetryOptions (retry.h: AWS standard mode).
// * A TransactWriteItems without ClientRequestToken gets one, the same on
//   every retry, so a commit whose answer was lost and that is sent again is
//   applied once by DynamoDB and answered with success.
// * No credential, session token or signature is ever put in an exception.
//
// Threading: the asynchronous path runs entirely on executor() — many calls
// in flight over the pool, no thread hidden behind them (name resolution of a
// new connection aside: Asio resolves on its internal thread). The blocking
// path never touches executor(): each blocking call borrows a private lane
// (its own io_context and keep-alive connection) and drives the very same
// code on it, so call() works from any thread, even with no io_context
// running anywhere, and never deadlocks against the caller's event loop.
// Both paths therefore keep their own pool of up to max_connections.
#pragma once

#include <memory>
#include <string>

#include "harel/dynamodb/client.h"
#include "harel/dynamodb/config.h"
#include "harel/dynamodb/http_options.h"

namespace harel::dynamodb {

class HttpDynamoClient final : public DynamoClient {
 public:
  // `executor` serves async_call(); `settings` normally come from
  // resolve_settings(). Raises InvalidArgument for unusable options (an
  // unreadable CA file, max_connections 0).
  HttpDynamoClient(boost::asio::any_io_executor executor, Settings settings, HttpClientOptions options = {});

  // Calls in flight keep what they need alive; idle connections close here.
  // The io_context behind `executor` must outlive the client (its pooled
  // sockets belong to it).
  ~HttpDynamoClient() override;

  boost::json::value call(std::string_view operation, const boost::json::object& request) override;
  boost::asio::any_io_executor executor() const override;

  const Endpoint& endpoint() const noexcept;
  const std::string& region() const noexcept;

 protected:
  void do_async_call(std::string_view operation, const boost::json::object& request, Handler handler) override;

 private:
  class Impl;
  std::shared_ptr<Impl> impl_;
};

}  // namespace harel::dynamodb
