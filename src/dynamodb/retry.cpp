#include "harel/dynamodb/retry.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>

namespace harel::dynamodb {
namespace {

// botocore's standard-mode lists, plus DynamoDB's own throttling codes.
constexpr std::array<std::string_view, 14> kThrottleCodes = {
    "Throttling",           "ThrottlingException",  "ThrottledException",
    "RequestThrottledException", "TooManyRequestsException", "ProvisionedThroughputExceededException",
    "TransactionInProgressException", "RequestLimitExceeded", "BandwidthLimitExceeded",
    "LimitExceededException", "RequestThrottled", "SlowDown", "EC2ThrottledException",
    "PriorRequestNotComplete"};
constexpr std::array<std::string_view, 4> kTransientCodes = {"RequestTimeout", "RequestTimeoutException",
                                                             "InternalServerError", "ServiceUnavailable"};

constexpr int kRetryCost = 5;
constexpr int kTimeoutRetryCost = 10;
constexpr int kNoRetryIncrement = 1;

}  // namespace

FailureKind classify_error(std::string_view code, int http_status) {
  // Never retried, whatever the status says: the answer cannot change.
  if (code == "ValidationException" || code == "ConditionalCheckFailedException" ||
      code == "TransactionCanceledException")
    return FailureKind::Fatal;
  if (std::find(kThrottleCodes.begin(), kThrottleCodes.end(), code) != kThrottleCodes.end())
    return FailureKind::Throttle;
  if (std::find(kTransientCodes.begin(), kTransientCodes.end(), code) != kTransientCodes.end())
    return FailureKind::Transient;
  if (http_status >= 500 && http_status <= 599) return FailureKind::Transient;
  return FailureKind::Fatal;
}

RetryPolicy::RetryPolicy(RetryOptions options) : options_(options), quota_(options.quota_capacity) {
  options_.max_attempts = std::max(options_.max_attempts, 1);
}

std::chrono::nanoseconds RetryPolicy::backoff(FailureKind kind, int failed_attempt, double uniform01) const {
  const auto base = kind == FailureKind::Throttle ? options_.throttle_base_delay : options_.base_delay;
  const double cap_ns = std::min(
      std::ldexp(static_cast<double>(std::chrono::nanoseconds(base).count()), std::clamp(failed_attempt - 1, 0, 62)),
      static_cast<double>(std::chrono::nanoseconds(options_.max_backoff).count()));
  return std::chrono::nanoseconds(static_cast<std::int64_t>(std::clamp(uniform01, 0.0, 1.0) * cap_ns));
}

bool RetryPolicy::should_retry(FailureKind kind, int failed_attempt, double uniform01,
                               std::chrono::nanoseconds* delay) {
  if (kind == FailureKind::Fatal || failed_attempt >= options_.max_attempts) return false;
  if (options_.quota_capacity > 0) {
    const int cost = kind == FailureKind::Timeout ? kTimeoutRetryCost : kRetryCost;
    int available = quota_.load(std::memory_order_relaxed);
    do {
      if (available < cost) return false;
    } while (!quota_.compare_exchange_weak(available, available - cost, std::memory_order_relaxed));
  }
  *delay = backoff(kind, failed_attempt, uniform01);
  return true;
}

void RetryPolicy::on_success(int attempts) {
  if (options_.quota_capacity <= 0) return;
  // A retried call refunds one retry's cost; a first-time success trickles
  // one token back. Either way the bucket never exceeds its capacity.
  const int refund = attempts > 1 ? kRetryCost : kNoRetryIncrement;
  int available = quota_.load(std::memory_order_relaxed);
  while (available < options_.quota_capacity &&
         !quota_.compare_exchange_weak(available, std::min(options_.quota_capacity, available + refund),
                                       std::memory_order_relaxed)) {
  }
}

}  // namespace harel::dynamodb
