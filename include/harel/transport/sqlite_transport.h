// SqliteTransport: a durable Transport in one SQLite file, no server.
//
// The file may be the one a SqliteStore uses: the transport's tables
// (queue_messages, queue_dedupe) cannot clash with the store's, are created
// if missing, and leave the store's schema version (PRAGMA user_version)
// alone. Like SqliteStore, the file is in WAL mode and several processes (or
// several SqliteTransport objects) may share it: every operation that
// changes anything is one BEGIN IMMEDIATE transaction, so a claim selects
// and leases under the file's write lock and two claimants never both take
// a group's head. Lease, delay and dedupe times are wall-clock seconds
// (system_clock), since every process on the file must read them alike.
//
// Each message row knows whether it is the head of its group (its oldest
// unparked message); claim scans only the heads, oldest first, through a
// partial index, so its cost grows with the groups it passes over (leased or
// delayed ones), not with the backlog.
//
// Where the contract leaves room it behaves as MemoryTransport does (see
// memory_transport.h: one lease per group per claim, unknown tokens, ids,
// attempts of a parked message). Besides, a stored event that no longer
// decodes is parked by the claim that meets it, its last_error naming the
// message and the decode error, and the claim goes on with other messages:
// one bad row never wedges the queue. parked() lists it with an empty event.
//
// Errors besides the contract's: BackendError("sqlite", "SQLITE_…") for any
// SQLite failure, with the file path in the message; after close(),
// BackendError("sqlite", "TransportClosed").
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "harel/transport/transport.h"

namespace harel {

struct SqliteTransportOptions {
  // How long one statement waits for another connection's lock before SQLite
  // answers SQLITE_BUSY (then the whole transaction is retried a few times).
  std::chrono::milliseconds busy_timeout{5000};
  // true: PRAGMA synchronous=FULL — a publish or ack that returned survives
  // power loss (one fsync of the WAL per transaction). false: NORMAL — never
  // corrupt, but the last transactions before a power loss may be lost: a
  // lost ack redelivers (at least once holds), a lost publish loses the
  // message. The pragma is per connection, so a SqliteStore on the same file
  // keeps its own setting.
  bool sync_full = true;
};

class SqliteTransport final : public Transport {
 public:
  // Opens (creating if needed) the database file at `path` and creates the
  // transport's tables if missing. Raises BackendError if the file cannot be
  // opened or is not an SQLite database.
  explicit SqliteTransport(std::string path, SqliteTransportOptions options = {});
  ~SqliteTransport() override;

  // The database file this transport was opened on.
  const std::string& path() const noexcept;

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
  // Durable: a publication's Settlement is not kept (its publisher settled).
  bool durable() const noexcept override { return true; }
  void close() override;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace harel
