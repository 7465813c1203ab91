// CaptureClient: records the requests a store sends, for the raw ceiling.
//
// The raw mode must send exactly the requests the store would send for a
// workload — same operations, same bodies, same CAS versions and seqs — so
// they are not rebuilt by hand (a second copy of the store's logic) but
// captured by running the workload's operations through a DynamoDBStore over
// this client before the measured run. While `forwarding`, calls go to the
// real client (a workload's prologue, e.g. the relay's pending_outbox, whose
// answer decides the operations that follow); otherwise they are answered
// locally as DynamoDB would answer them on success, without any IO.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <boost/json/object.hpp>

#include "harel/dynamodb/client.h"

namespace harel::bench {

// DynamoDB's answers to the store's writes on success, made up locally: the
// seq allocator's counter ADD (UpdateItem) answers with the counter's new
// value; every other write (TransactWriteItems, DeleteItem, ...) "{}". The
// seqs only name outbox items, which are written unconditionally, so any
// fresh value stands in for the server's.
class LocalAnswers {
 public:
  explicit LocalAnswers(std::int64_t first_seq) : counter_(first_seq) {}
  boost::json::object answer(std::string_view operation, const boost::json::object& request);

 private:
  std::int64_t counter_;
};

struct CapturedCall {
  std::string operation;
  boost::json::object request;
};

class CaptureClient final : public dynamodb::DynamoClient {
 public:
  explicit CaptureClient(std::shared_ptr<dynamodb::DynamoClient> real) : real_(std::move(real)) {}

  boost::json::value call(std::string_view operation, const boost::json::object& request) override;
  boost::asio::any_io_executor executor() const override { return real_->executor(); }

  void forwarding(bool on) { forwarding_ = on; }
  // The calls captured since the last take().
  std::vector<CapturedCall> take() { return std::exchange(calls_, {}); }

 private:
  std::shared_ptr<dynamodb::DynamoClient> real_;
  bool forwarding_ = false;
  LocalAnswers answers_{1'000'000'000};
  std::vector<CapturedCall> calls_;
};

}  // namespace harel::bench
