#include "harel/dynamodb/retry.h"

#include <gtest/gtest.h>

namespace harel::dynamodb {
namespace {

using std::chrono::milliseconds;
using std::chrono::nanoseconds;

TEST(RetryPolicy, ClassifiesLikeStandardMode) {
  EXPECT_EQ(classify_error("ValidationException", 400), FailureKind::Fatal);
  EXPECT_EQ(classify_error("ConditionalCheckFailedException", 400), FailureKind::Fatal);
  EXPECT_EQ(classify_error("TransactionCanceledException", 400), FailureKind::Fatal);
  EXPECT_EQ(classify_error("TransactionCanceledException", 500), FailureKind::Fatal);
  EXPECT_EQ(classify_error("ResourceNotFoundException", 400), FailureKind::Fatal);
  EXPECT_EQ(classify_error("AccessDeniedException", 400), FailureKind::Fatal);
  EXPECT_EQ(classify_error("ThrottlingException", 400), FailureKind::Throttle);
  EXPECT_EQ(classify_error("ProvisionedThroughputExceededException", 400), FailureKind::Throttle);
  EXPECT_EQ(classify_error("RequestLimitExceeded", 400), FailureKind::Throttle);
  EXPECT_EQ(classify_error("TransactionInProgressException", 400), FailureKind::Throttle);
  EXPECT_EQ(classify_error("InternalServerError", 500), FailureKind::Transient);
  EXPECT_EQ(classify_error("HTTP503", 503), FailureKind::Transient);
  EXPECT_EQ(classify_error("Whatever", 504), FailureKind::Transient);
}

TEST(RetryPolicy, StopsAfterMaxAttempts) {
  RetryPolicy p;  // 3 attempts
  nanoseconds d{};
  EXPECT_TRUE(p.should_retry(FailureKind::Transient, 1, 0.5, &d));
  EXPECT_TRUE(p.should_retry(FailureKind::Transient, 2, 0.5, &d));
  EXPECT_FALSE(p.should_retry(FailureKind::Transient, 3, 0.5, &d));
  EXPECT_FALSE(p.should_retry(FailureKind::Fatal, 1, 0.5, &d));
  RetryOptions one;
  one.max_attempts = 1;
  EXPECT_FALSE(RetryPolicy(one).should_retry(FailureKind::Throttle, 1, 0.5, &d));
}

TEST(RetryPolicy, FullJitterExponentialBackoffBounds) {
  RetryOptions o;
  o.base_delay = milliseconds(25);
  o.throttle_base_delay = milliseconds(500);
  o.max_backoff = milliseconds(2000);
  const RetryPolicy p(o);
  // cap(n) = min(max_backoff, base * 2^(n-1)); delay = u * cap(n), u in [0,1)
  EXPECT_EQ(p.backoff(FailureKind::Transient, 1, 0.0), nanoseconds(0));
  EXPECT_EQ(p.backoff(FailureKind::Transient, 1, 1.0), milliseconds(25));
  EXPECT_EQ(p.backoff(FailureKind::Transient, 2, 1.0), milliseconds(50));
  EXPECT_EQ(p.backoff(FailureKind::Transient, 3, 0.5), milliseconds(50));
  EXPECT_EQ(p.backoff(FailureKind::Throttle, 1, 1.0), milliseconds(500));
  EXPECT_EQ(p.backoff(FailureKind::Throttle, 3, 1.0), milliseconds(2000));   // capped
  EXPECT_EQ(p.backoff(FailureKind::Transient, 60, 1.0), milliseconds(2000)); // no overflow
  for (double u : {0.0, 0.1, 0.37, 0.99}) {
    const nanoseconds d = p.backoff(FailureKind::Transient, 4, u);
    EXPECT_GE(d, nanoseconds(0));
    EXPECT_LE(d, milliseconds(200));
  }
}

TEST(RetryPolicy, QuotaLimitsRetryStormsAndRefillsOnSuccess) {
  RetryOptions o;
  o.max_attempts = 10;
  o.quota_capacity = 20;
  RetryPolicy p(o);
  nanoseconds d{};
  EXPECT_TRUE(p.should_retry(FailureKind::Transient, 1, 0.0, &d));  // 20 → 15
  EXPECT_TRUE(p.should_retry(FailureKind::Timeout, 1, 0.0, &d));    // 15 → 5
  EXPECT_TRUE(p.should_retry(FailureKind::Transient, 1, 0.0, &d));  // 5 → 0
  EXPECT_EQ(p.quota_available(), 0);
  EXPECT_FALSE(p.should_retry(FailureKind::Transient, 1, 0.0, &d));
  p.on_success(2);  // a retried call succeeded: +5
  EXPECT_EQ(p.quota_available(), 5);
  p.on_success(1);
  EXPECT_EQ(p.quota_available(), 6);
  for (int i = 0; i < 100; ++i) p.on_success(2);
  EXPECT_EQ(p.quota_available(), 20);  // never above capacity
}

}  // namespace
}  // namespace harel::dynamodb
