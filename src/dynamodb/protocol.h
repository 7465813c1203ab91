// The DynamoDB JSON 1.0 protocol without the transport: request bodies,
// ClientRequestToken, and the interpretation of responses. Shared by the
// blocking and asynchronous paths of HttpDynamoClient and unit-tested alone.
#pragma once

#include <exception>
#include <string>
#include <string_view>

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include "harel/dynamodb/retry.h"

namespace harel::dynamodb::protocol {

inline constexpr std::string_view kContentType = "application/x-amz-json-1.0";
inline constexpr std::string_view kTargetPrefix = "DynamoDB_20120810.";

// Raises InvalidArgument unless `operation` looks like an action name
// (letters only): it becomes part of a signed header.
void check_operation(std::string_view operation);

// The request body. A TransactWriteItems without a ClientRequestToken gets a
// fresh one, spliced into the serialized text so the caller's object is
// neither copied nor modified; the caller then reuses this body — and so the
// token — for every retry of the call.
std::string request_body(std::string_view operation, const boost::json::object& request);

// 36 characters (a random UUID v4): DynamoDB's limit for the token.
std::string new_client_request_token();

// The interpretation of one complete HTTP response.
struct Interpreted {
  boost::json::value response;  // the document, when error is null
  std::exception_ptr error;     // a DynamoError (or TransportError for an unreadable 2xx body)
  FailureKind kind = FailureKind::Fatal;  // how the retry policy sees the error
};

// Whether an HTTP status is a successful answer: interpret() then reads the
// body as the response, and needs neither the request id nor the error type.
constexpr bool success_status(int status) { return status >= 200 && status < 300; }

// `error_type_header` is x-amzn-ErrorType (used when the body has no
// __type), `request_id` x-amzn-RequestId; both may be empty.
Interpreted interpret(int status, std::string_view body, std::string_view request_id,
                      std::string_view error_type_header);

}  // namespace harel::dynamodb::protocol
