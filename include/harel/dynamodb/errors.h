// Typed errors of the DynamoDB client.
//
// Both derive from harel::BackendError with backend() == "dynamodb", so a
// store can let them through as backend failures while a caller that cares
// (a CAS translating TransactionCanceledException, a retry loop) can catch
// them precisely. Messages never contain credentials or signatures.
#pragma once

#include <string>
#include <system_error>

#include <boost/json/object.hpp>

#include "harel/errors.h"

namespace harel::dynamodb {

// DynamoDB answered with an error. code() is the `__type` after its '#'
// ("ConditionalCheckFailedException"), http_status() the HTTP status.
// body() is the whole error document, e.g. for TransactionCanceledException's
// "CancellationReasons". retryable() says whether the standard retry policy
// treats the code/status as transient (the call has already been retried as
// often as configured when this reaches the caller).
class DynamoError : public BackendError {
 public:
  DynamoError(std::string code, std::string message, int http_status, bool retryable, std::string request_id,
              boost::json::object body);

  const std::string& service_message() const noexcept { return service_message_; }
  bool retryable() const noexcept { return retryable_; }
  const std::string& request_id() const noexcept { return request_id_; }  // x-amzn-RequestId, may be ""
  const boost::json::object& body() const noexcept { return body_; }

 private:
  std::string service_message_;
  bool retryable_;
  std::string request_id_;
  boost::json::object body_;
};

// The request never got a complete HTTP answer: name resolution, connect,
// TLS handshake or certificate verification failed, the connection broke, or
// a timeout fired. code() is one of "ResolveFailed", "ConnectFailed",
// "ConnectTimeout", "TlsFailed", "ConnectionBroken", "RequestTimeout",
// "MalformedResponse"; error() keeps the underlying system/Asio error.
// http_status() is 0. retryable() is false only for failures that cannot heal
// by trying again (a certificate that does not verify, a malformed URL).
class TransportError : public BackendError {
 public:
  TransportError(std::string code, const std::string& detail, std::error_code error, bool retryable);

  std::error_code error() const noexcept { return error_; }
  bool retryable() const noexcept { return retryable_; }

 private:
  std::error_code error_;
  bool retryable_;
};

}  // namespace harel::dynamodb
