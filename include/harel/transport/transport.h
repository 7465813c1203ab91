// Transport: moves events between workers, one worker per execution at a time.
//
// The store keeps state and the outbox (the durable record of what must be
// sent); a transport carries events to the worker that applies them. Its one
// rule is a *single active consumer per group*, where the group is the
// execution id: while a message of a group is leased, no other message of that
// group is handed out, so one worker at a time advances an execution and no
// two workers race on its version. The shape follows SQS FIFO, the transport
// that comes with the all-AWS pairing:
//
//   group        = MessageGroupId (the execution id)
//   claim        = ReceiveMessage with a visibility timeout (the lease)
//   ack          = DeleteMessage
//   nack(delay)  = ChangeMessageVisibility(delay)
//   park         = a dead-letter queue
//
// Guarantees every implementation gives (tests/transport/contract.h):
// * FIFO within a group: a group's messages are claimed in publish order,
//   each only after the one before it was acked or parked.
// * A lease that is neither acked nor nacked expires after its visibility
//   and the message becomes claimable again (with attempts + 1): this is how
//   a crashed worker's work is recovered. Delivery is therefore at least
//   once; the store's dedupe marks make an event's effect exactly once.
// * Messages of different groups never wait for each other: a nacked,
//   delayed or leased message holds back only its own group, and a parked
//   one holds back nothing.
// * A publication with a dedupe id is dropped if a message with the same
//   dedupe id was published within the last kDedupeWindow (SQS FIFO's
//   MessageDeduplicationId), so a relay that dies between publishing an
//   outbox row and acking it does not enqueue the row twice.
//
// Thread safety: every implementation may be called from several threads at
// once, and (where it is durable) from several processes sharing it.
//
// Errors: InvalidArgument for unusable input (an empty group id, a negative
// delay), raised before anything is written; BackendError for failures of the
// backend (keeping its code); BackendError with code "TransportClosed" after
// close(). ack/nack/defer/extend/park of a lease that has expired (and so
// may have been claimed again by someone else) or already ended are no-ops
// that return false: the message's fate is then the newer lease holder's.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "harel/model/event.h"
#include "harel/model/timer.h"

namespace harel {

// How long a dedupe id is remembered (SQS FIFO's deduplication interval).
inline constexpr std::chrono::minutes kDedupeWindow{5};

// What the consumer of a message settles in the store once it applied the
// event. A durable transport keeps a published message across a crash, so its
// publisher settles at once (acks the outbox row, deletes the fired timer); a
// transport that is not durable (Transport::durable() false) loses its
// messages with the process, so the store's row must stay until the event is
// applied, and the message carries what to settle then.
struct Settlement {
  std::optional<std::int64_t> outbox_seq;  // ack this outbox row
  std::optional<DueTimer> timer;           // delete this timer (guarded on fire_at)

  friend bool operator==(const Settlement&, const Settlement&) = default;
};

// One message to publish.
struct Publication {
  std::string group_id;  // the target execution id
  Event event;
  // Optional deduplication id (see the header comment). Unset: every
  // publication is a new message, even of an event id sent before.
  std::optional<std::string> dedupe_id;
  Settlement settle{};  // carried to the lease by transports that are not durable
};

// A claimed message: exclusive to its holder until acked, nacked, parked or
// expired.
struct Lease {
  std::string group_id;
  Event event;
  std::string token;  // the transport's receipt for this claim (opaque)
  // Earlier claims of this message that ended without an ack: nacks and
  // expired leases, not defers. A worker parks a message once this reaches
  // its attempt budget.
  std::int64_t attempts = 0;
  Settlement settle{};  // the publication's (non-durable transports only)
};

// A message taken out of circulation after failing too often.
struct ParkedMessage {
  std::string id;  // for requeue()
  std::string group_id;
  Event event;
  std::int64_t attempts = 0;  // as Lease::attempts, the claim that parked it included
  std::string last_error;
};

// What a transport can tell about its backlog (for a worker's status line).
struct TransportBacklog {
  std::int64_t pending = 0;  // messages waiting or leased, parked ones excluded
  std::int64_t parked = 0;
  // Age of the oldest pending message, where the transport can tell.
  std::optional<std::chrono::milliseconds> oldest_age;
};

class Transport {
 public:
  virtual ~Transport() = default;
  Transport(const Transport&) = delete;
  Transport& operator=(const Transport&) = delete;

  // Appends each message to the end of its group, atomically per call where
  // the backend allows (all or none), in the order given.
  virtual void publish(std::span<const Publication> messages) = 0;
  void publish(std::string_view group_id, const Event& event);

  // Leases up to `max_messages` (1..10) claimable messages, oldest first,
  // each hidden from other claims for `visibility`. Returns none when nothing
  // is claimable now (it does not wait). Several leases of one group may come
  // in one answer (SQS does that): they are then in group order and must be
  // handled in that order. `worker_id` names the claimant for diagnostics.
  virtual std::vector<Lease> claim(std::string_view worker_id, std::chrono::milliseconds visibility,
                                   int max_messages = 1) = 0;

  // Removes the message: it was handled.
  virtual bool ack(const Lease& lease) = 0;
  // Returns the message after `delay` (0: now), counting a failed attempt.
  virtual bool nack(const Lease& lease, std::chrono::milliseconds delay) = 0;
  // Returns the message after `delay` without counting an attempt: the
  // worker could not take it now (it lacks the definition, the execution is
  // suspended), which says nothing about the message.
  virtual bool defer(const Lease& lease, std::chrono::milliseconds delay) = 0;
  // Extends the lease to `visibility` from now (a long-running step).
  virtual bool extend(const Lease& lease, std::chrono::milliseconds visibility) = 0;
  // Takes the message out of circulation with the reason it failed; its
  // group goes on with the next message.
  virtual bool park(const Lease& lease, std::string_view last_error) = 0;

  // Parked messages, oldest first.
  virtual std::vector<ParkedMessage> parked() = 0;
  // Puts a parked message back at the end of its group with attempts reset;
  // nullopt: every parked message. Returns how many were requeued (an
  // unknown id: 0).
  virtual std::int64_t requeue(std::optional<std::string_view> parked_id) = 0;

  virtual TransportBacklog backlog() = 0;

  // Whether a published message survives the crash of this process. The
  // publisher of a message on a transport that is not durable leaves its
  // store rows for the consumer to settle (see Settlement).
  virtual bool durable() const noexcept = 0;

  // Releases connections / handles. Later calls raise BackendError
  // "TransportClosed". Idempotent.
  virtual void close() = 0;

 protected:
  Transport() = default;
};

}  // namespace harel
