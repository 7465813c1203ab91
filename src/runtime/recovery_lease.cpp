#include "runtime/recovery_lease.h"

#include <boost/asio/use_awaitable.hpp>

#include "harel/errors.h"

namespace harel::runtime {

namespace asio = boost::asio;

RecoveryLease::RecoveryLease(AsyncExecutionStore& store, std::string holder, std::chrono::milliseconds ttl,
                             std::function<EpochSeconds()> clock)
    : store_(store), holder_(std::move(holder)), ttl_(ttl), clock_(std::move(clock)) {}

asio::awaitable<bool> RecoveryLease::try_hold() {
  co_return co_await write(clock_() + static_cast<double>(ttl_.count()) / 1000.0);
}

asio::awaitable<void> RecoveryLease::release() {
  if (written_) co_await write(0);
}

asio::awaitable<bool> RecoveryLease::write(EpochSeconds expires_at) {
  std::optional<Execution> record = std::move(written_);
  written_.reset();
  if (!record) {
    record = co_await store_.async_load(kRecoveryLeaseId, asio::use_awaitable);
    if (record) {
      const auto* holder = record->context.if_contains("holder");
      const auto* expires = record->context.if_contains("expires_at");
      const bool mine = holder && holder->is_string() && holder->as_string() == holder_;
      const bool expired = !expires || !expires->is_number() || expires->to_number<double>() <= clock_();
      if (!mine && !expired) co_return false;
    } else {
      record.emplace();
      record->id = std::string(kRecoveryLeaseId);
      record->definition_id = std::string(kRecoveryLeaseDefinition);
    }
  }
  record->context = {{"holder", holder_}, {"expires_at", expires_at}};
  try {
    co_await store_.async_commit(*record, Effects{}, asio::use_awaitable);
  } catch (const StoreConflict&) {  // another worker wrote it first (or took it over)
    co_return false;
  }
  if (expires_at > 0) written_ = std::move(record);
  co_return true;
}

}  // namespace harel::runtime
