// RecoveryLease: which one worker of a fleet does the recovery work — firing
// due timers and delivering outbox and spawn rows that a crashed worker left
// behind — so that the fleet does it once, not once per worker.
//
// The lease is a record in the store itself (every store has one CAS), kept
// as an execution with id kRecoveryLeaseId and definition kRecoveryLeaseDefinition
// whose context is {"holder", "expires_at"}. Taking or renewing it is a
// version-checked commit, so two workers never both win; a holder that dies
// stops renewing, and the lease is taken over once expires_at has passed.
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include <boost/asio/awaitable.hpp>

#include "harel/store/async_execution_store.h"

namespace harel::runtime {

inline constexpr std::string_view kRecoveryLeaseId = "harel.recovery-lease";
inline constexpr std::string_view kRecoveryLeaseDefinition = "harel.lease";

class RecoveryLease {
 public:
  RecoveryLease(AsyncExecutionStore& store, std::string holder, std::chrono::milliseconds ttl,
                std::function<EpochSeconds()> clock);

  // Takes the lease if it is free or expired, renews it if this holder has
  // it. Completes with whether this holder has it now (for ttl from now).
  boost::asio::awaitable<bool> try_hold();
  // Gives the lease up if held, so another worker takes over at once.
  boost::asio::awaitable<void> release();

 private:
  boost::asio::awaitable<bool> write(EpochSeconds expires_at);

  AsyncExecutionStore& store_;
  std::string holder_;
  std::chrono::milliseconds ttl_;
  std::function<EpochSeconds()> clock_;
  // The record as this holder last wrote it: renewing needs no read.
  std::optional<Execution> written_;
};

}  // namespace harel::runtime
