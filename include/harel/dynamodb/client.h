// DynamoClient: the seam between harel's DynamoDB store and DynamoDB.
//
// The store speaks DynamoDB's JSON protocol at the operation level — an
// operation name ("PutItem", "TransactWriteItems") and its request document
// in, the response document out — and never names a transport. The real
// implementation is HttpDynamoClient (http_client.h); tests inject recording
// or fault-injecting clients, and a user may adapt the AWS SDK for C++.
//
// Every operation exists twice over ONE implementation: call() blocks the
// calling thread; async_call() follows Asio's universal asynchronous model,
// so the completion token picks the style:
//
//   auto out = client.call("GetItem", request);                      // blocking
//   client.async_call("GetItem", request, [](std::exception_ptr e, boost::json::value out) { ... });
//   auto out = co_await client.async_call("GetItem", request, boost::asio::use_awaitable);
//   std::future<boost::json::value> f = client.async_call("GetItem", request, boost::asio::use_future);
//
// Failures: a DynamoDB error response raises (or completes with) a
// DynamoError carrying the service's code, message and HTTP status; a
// request that got no complete answer raises TransportError; both derive
// from harel::BackendError. An implementation retries transient failures
// itself (see retry.h), so an error that reaches the caller is final.
// Requests the client cannot send (unknown operation syntax, a request that
// does not serialize) raise InvalidArgument before anything is sent.
//
// Thread safety: every implementation may be used from several threads at
// once, for both call() and async_call().
//
// Implementing a client: override call() and executor(). The default
// do_async_call() runs call() on the initiating thread and delivers the
// result through the handler's associated executor — exactly right for a
// test double, wrong for anything that really blocks. A real asynchronous
// client overrides do_async_call() too.
#pragma once

#include <exception>
#include <string_view>
#include <utility>

#include <boost/asio/any_completion_handler.hpp>
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/async_result.hpp>
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

namespace harel::dynamodb {

class DynamoClient {
 public:
  // The completion signature of every asynchronous call: on success the
  // exception_ptr is null and the value holds the response document (an
  // empty object for operations that answer "{}"); on failure the value is
  // null and the exception is a DynamoError, TransportError or
  // InvalidArgument as for call().
  using Signature = void(std::exception_ptr, boost::json::value);
  using Handler = boost::asio::any_completion_handler<Signature>;

  DynamoClient() = default;
  DynamoClient(const DynamoClient&) = delete;
  DynamoClient& operator=(const DynamoClient&) = delete;
  virtual ~DynamoClient() = default;

  // Performs `operation` (a DynamoDB action name) with `request` and returns
  // the response document, after the implementation's retries. Blocks.
  virtual boost::json::value call(std::string_view operation, const boost::json::object& request) = 0;

  // The executor on which asynchronous calls do their work and on which a
  // handler without an associated executor of its own is invoked.
  virtual boost::asio::any_io_executor executor() const = 0;

  // Starts `operation` asynchronously. The completion token decides how the
  // result is delivered (callback, use_future, use_awaitable, deferred...).
  //
  // `request` is read (serialized) when the operation starts and is not
  // referenced afterwards: with an eager token that is before async_call
  // returns; with a lazy token (use_awaitable, deferred) it must stay alive
  // until the operation is launched — `co_await client.async_call(op, req,
  // use_awaitable)` in one expression is always fine.
  //
  // The handler is invoked exactly once, never from inside async_call itself
  // (it is dispatched through its associated executor, or executor()).
  template <class CompletionToken>
  auto async_call(std::string_view operation, const boost::json::object& request, CompletionToken&& token) {
    return boost::asio::async_initiate<CompletionToken, Signature>(
        [this](auto handler, std::string_view op, const boost::json::object* req) {
          do_async_call(op, *req, Handler(std::move(handler)));
        },
        token, operation, &request);
  }

 protected:
  // The type-erased form async_call() forwards to. An implementation must
  // finish reading `operation` and `request` before returning (they may
  // dangle afterwards) and must invoke `handler` exactly once, not from
  // within this function — post it, e.g. through
  // boost::asio::get_associated_executor(handler, executor()).
  // The default implementation runs call() here and posts the outcome.
  virtual void do_async_call(std::string_view operation, const boost::json::object& request, Handler handler);
};

}  // namespace harel::dynamodb
