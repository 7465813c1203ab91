// The retry policy of the DynamoDB client: AWS's "standard" retry mode.
//
// What is retried: throttling error codes, transient error codes, any HTTP
// 5xx, and transport failures (refused/broken/timed-out connections). What is
// never retried: every other 4xx, in particular ValidationException,
// ConditionalCheckFailedException and TransactionCanceledException — retrying
// those cannot change the answer, and for a transaction a retry after a
// cancellation could hide a real conflict.
//
// How long to wait: exponential backoff with full jitter,
//   delay(n) = random[0,1) * min(max_backoff, base * 2^(n-1))
// after the n-th failed attempt, with a larger base for throttling (backing
// off harder is what relieves a throttled table).
//
// How many: at most max_attempts attempts per call, and a client-wide retry
// quota (a token bucket) so that a struggling service is not hit by a storm
// of retries from every caller at once: each retry takes 5 tokens (10 after a
// timeout), a successful retried call gives them back, and a call that
// succeeds first time adds 1, up to the initial capacity.
#pragma once

#include <atomic>
#include <chrono>
#include <string_view>

namespace harel::dynamodb {

struct RetryOptions {
  int max_attempts = 3;  // attempts per call, the first included (>= 1)
  std::chrono::milliseconds base_delay{25};
  std::chrono::milliseconds throttle_base_delay{500};
  std::chrono::milliseconds max_backoff{20'000};
  int quota_capacity = 500;  // 0 disables the quota
};

// How a failed attempt is classified.
enum class FailureKind {
  Fatal,      // never retried (validation, conditional check, auth, other 4xx)
  Transient,  // 5xx, transient codes, broken or refused connections
  Timeout,    // a connect/request timeout (costs more quota)
  Throttle,   // throttling codes: backed off with throttle_base_delay
};

// Classifies a DynamoDB error response by its code (`__type` after '#') and
// HTTP status.
FailureKind classify_error(std::string_view code, int http_status);

// Thread-safe; one per client, shared by all its calls.
class RetryPolicy {
 public:
  explicit RetryPolicy(RetryOptions options = {});

  const RetryOptions& options() const noexcept { return options_; }

  // Decides whether to retry after `failed_attempt` (1-based) failed with
  // `kind`. Returns false when the error is fatal, the attempts are used up
  // or the quota is exhausted; otherwise takes the retry's quota tokens and
  // stores in *delay how long to wait first. `uniform01` is a random number
  // in [0,1) supplied by the caller (tests pass fixed ones).
  bool should_retry(FailureKind kind, int failed_attempt, double uniform01, std::chrono::nanoseconds* delay);

  // The backoff alone (no quota, no attempt limit): uniform01 * cap(n).
  std::chrono::nanoseconds backoff(FailureKind kind, int failed_attempt, double uniform01) const;

  // Reports a successful call that needed `attempts` attempts (refunds quota).
  void on_success(int attempts);

  int quota_available() const noexcept { return quota_.load(std::memory_order_relaxed); }

 private:
  RetryOptions options_;
  std::atomic<int> quota_;
};

}  // namespace harel::dynamodb
