// MemoryTransport: the reference semantics of Transport, in process memory.
//
// Thread-safe (one mutex); nothing survives the process. Lease, delay and
// dedupe times run on the steady clock, so a wall-clock step never expires a
// lease early. Claim looks only at each group's head (its oldest unparked
// message), so it costs O(log n) per group it passes over, not per message.
//
// Behaviour the contract leaves open, identical in SqliteTransport:
// * A claim leases at most one message per group.
// * A parked message's attempts count the claim that parked it.
// * A token this transport never handed out is stale (false), not an error.
// * Message ids are decimal numbers, in publish order; a requeued message
//   gets a new one (it goes to the end of its group).
// Errors: BackendError("memory", "TransportClosed") after close().
#pragma once

#include <memory>

#include "harel/transport/transport.h"

namespace harel {

class MemoryTransport final : public Transport {
 public:
  MemoryTransport();
  ~MemoryTransport() override;

  using Transport::publish;
  void publish(std::span<const Publication> messages) override;
  std::vector<Lease> claim(std::string_view worker_id, std::chrono::milliseconds visibility,
                           int max_messages = 1) override;
  bool ack(const Lease& lease) override;
  bool nack(const Lease& lease, std::chrono::milliseconds delay) override;
  bool defer(const Lease& lease, std::chrono::milliseconds delay) override;
  bool extend(const Lease& lease, std::chrono::milliseconds visibility) override;
  bool park(const Lease& lease, std::string_view last_error) override;
  std::vector<ParkedMessage> parked() override;
  std::int64_t requeue(std::optional<std::string_view> parked_id) override;
  TransportBacklog backlog() override;
  // Not durable: messages carry their Settlement to the lease.
  bool durable() const noexcept override { return false; }
  void close() override;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace harel
