// A DynamoClient for pinning request shapes and injecting answers: it records
// every call and answers from a script, without any server.
#pragma once

#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include <boost/asio/io_context.hpp>
#include <boost/json/value.hpp>

#include "harel/dynamodb/client.h"
#include "harel/dynamodb/errors.h"

namespace harel::testing {

struct RecordedCall {
  std::string operation;
  boost::json::object request;
};

class RecordingClient final : public dynamodb::DynamoClient {
 public:
  // Answers a call; may throw (e.g. service_error(...)) to simulate a failure.
  using Script = std::function<boost::json::value(const std::string& operation, const boost::json::object& request)>;

  explicit RecordingClient(Script script = nullptr) : script_(std::move(script)) {}

  boost::json::value call(std::string_view operation, const boost::json::object& request) override {
    {
      std::lock_guard lock(mu_);
      calls_.push_back({std::string(operation), request});
    }
    return script_ ? script_(std::string(operation), request) : boost::json::value(boost::json::object());
  }
  boost::asio::any_io_executor executor() const override { return context_.get_executor(); }

  std::vector<RecordedCall> calls() const {
    std::lock_guard lock(mu_);
    return calls_;
  }
  std::vector<std::string> operations() const {
    std::vector<std::string> ops;
    for (const auto& c : calls()) ops.push_back(c.operation);
    return ops;
  }
  void clear() {
    std::lock_guard lock(mu_);
    calls_.clear();
  }
  boost::asio::io_context& context() { return context_; }

 private:
  Script script_;
  mutable std::mutex mu_;
  std::vector<RecordedCall> calls_;
  mutable boost::asio::io_context context_;
};

// The error DynamoDB answers with `code` (HTTP 400, not retryable).
inline dynamodb::DynamoError service_error(const std::string& code, int status = 400) {
  return dynamodb::DynamoError(code, "injected " + code, status, status >= 500, "req-1",
                               boost::json::object{{"__type", "com.amazonaws.dynamodb.v20120810#" + code}});
}

}  // namespace harel::testing
