#include "harel/dynamodb/errors.h"

namespace harel::dynamodb {

DynamoError::DynamoError(std::string code, std::string message, int http_status, bool retryable,
                         std::string request_id, boost::json::object body)
    : BackendError("dynamodb", std::move(code), message, http_status),
      service_message_(std::move(message)),
      retryable_(retryable),
      request_id_(std::move(request_id)),
      body_(std::move(body)) {}

TransportError::TransportError(std::string code, const std::string& detail, std::error_code error, bool retryable)
    : BackendError("dynamodb", std::move(code), detail), error_(error), retryable_(retryable) {}

}  // namespace harel::dynamodb
