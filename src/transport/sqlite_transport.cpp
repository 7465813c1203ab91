#include "harel/transport/sqlite_transport.h"

#include <algorithm>
#include <mutex>
#include <type_traits>
#include <utility>

#include "harel/errors.h"
#include "harel/model/codec.h"
#include "store/sqlite/connection.h"
#include "transport/validate.h"

namespace harel {

using store::sqlite::Connection;
using store::sqlite::Query;
using store::sqlite::Statement;

namespace {

// IF NOT EXISTS and no schema version: the tables join whatever file they
// are opened on (a SqliteStore's, whose user_version is its own) and are
// created by whichever process comes first.
constexpr const char* kSchema = R"sql(
CREATE TABLE IF NOT EXISTS queue_messages (
  -- AUTOINCREMENT: publish order, and an id is never reused, so a stale
  -- token can never name a later message.
  id          INTEGER PRIMARY KEY AUTOINCREMENT,
  group_id    TEXT NOT NULL,
  event       TEXT NOT NULL,               -- the Event as JSON
  enqueued_at REAL NOT NULL,               -- wall-clock seconds, like every time here
  visible_at  REAL NOT NULL,               -- claimable from then on: the end of a lease or a delay
  head        INTEGER NOT NULL,            -- 1: the group's lowest unparked id, the one claimable
  leased      INTEGER NOT NULL DEFAULT 0,  -- 1: the last claim has not ended (active or expired)
  deliveries  INTEGER NOT NULL DEFAULT 0,  -- claims so far; a token is "id.deliveries"
  attempts    INTEGER NOT NULL DEFAULT 0,  -- claims ended without ack, defers not counted
  parked_at   REAL,                        -- set: out of circulation
  last_error  TEXT
);
-- A group's next message (publish, ack, park).
CREATE INDEX IF NOT EXISTS queue_messages_by_group ON queue_messages (group_id, id) WHERE parked_at IS NULL;
-- claim: the heads, oldest first, visibility read from the index.
CREATE INDEX IF NOT EXISTS queue_messages_heads ON queue_messages (id, visible_at) WHERE head = 1;
CREATE INDEX IF NOT EXISTS queue_messages_parked ON queue_messages (id) WHERE parked_at IS NOT NULL;

CREATE TABLE IF NOT EXISTS queue_dedupe (
  dedupe_id    TEXT PRIMARY KEY NOT NULL,
  published_at REAL NOT NULL
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS queue_dedupe_by_time ON queue_dedupe (published_at);
)sql";

// `before` WHERE <the claim a token names is still active> `after`, the
// condition's parameters being ?1 the message id, ?2 its delivery number and
// ?3 now. Parked rows have leased = 0.
std::string on_held_sql(std::string_view before, std::string_view after) {
  return std::string(before) + " WHERE id = ?1 AND deliveries = ?2 AND leased = 1 AND visible_at > ?3 " +
         std::string(after);
}

double wall_now() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

double seconds(std::chrono::milliseconds d) { return std::chrono::duration<double>(d).count(); }

// A lease's token: "<message id>.<delivery number>". Every claim bumps the
// delivery number, so a token names one claim of one message, across
// processes and reopenings.
struct Token {
  std::int64_t id = 0;
  std::int64_t delivery = 0;

  std::string text() const { return std::to_string(id) + "." + std::to_string(delivery); }

  // nullopt for a token of another transport (which then names no claim).
  // Both parts are decimal numbers, as message ids are.
  static std::optional<Token> parse(std::string_view text) {
    const auto dot = text.find('.');
    if (dot == std::string_view::npos) return std::nullopt;
    auto id = transport::parse_message_id(text.substr(0, dot));
    auto delivery = transport::parse_message_id(text.substr(dot + 1));
    if (!id || !delivery) return std::nullopt;
    return Token{*id, *delivery};
  }
};

std::unique_ptr<Connection> open_database(const std::string& path, const SqliteTransportOptions& options) {
  auto conn = std::make_unique<Connection>(path, options.busy_timeout);
  store::sqlite::retry_busy([&] {
    conn->exec(options.sync_full ? "PRAGMA synchronous = FULL" : "PRAGMA synchronous = NORMAL");
    store::sqlite::write_transaction(*conn, [&] { conn->exec(kSchema); });
    conn->exec("PRAGMA journal_mode = WAL");
  });
  return conn;
}

// Runs `body` as one write transaction, run again as a whole while the file
// is busy; returns what `body` returns.
template <class F>
auto transaction(Connection& conn, F body) {
  using Result = std::invoke_result_t<F&>;
  return store::sqlite::retry_busy([&] {
    if constexpr (std::is_void_v<Result>) {
      store::sqlite::write_transaction(conn, body);
    } else {
      Result out{};
      store::sqlite::write_transaction(conn, [&] { out = body(); });
      return out;
    }
  });
}

// A message as stored, its event not decoded yet.
struct Stored {
  std::int64_t id = 0;
  std::string group_id;
  std::string event;
};

// Every statement the transport runs, prepared once.
struct Db {
  Connection& conn;
  Statement insert_message;
  Statement remember_dedupe;
  Statement prune_dedupe;
  Statement claimable;
  Statement take;
  Statement park_unreadable;
  Statement promote;
  Statement ack;
  Statement release;
  Statement extend;
  Statement park;
  Statement list_parked;
  Statement parked_ids;
  Statement parked_by_id;
  Statement delete_message;
  Statement backlog;

  explicit Db(Connection& c);

  // Appends to the end of the group; the head if the group has no other.
  void append(std::string_view group_id, std::string_view event, double now) {
    Query(insert_message).bind(1, group_id).bind(2, event).bind(3, now).run();
  }

  // Whether a publication with `dedupe_id` is new; remembers it if so.
  bool remember(const std::string& dedupe_id, double now) {
    Query(remember_dedupe).bind(1, dedupe_id).bind(2, now).bind(3, now - seconds(kDedupeWindow)).run();
    return conn.changes() > 0;
  }

  // The claimable group heads, oldest first.
  std::vector<Stored> heads(double now, int limit) {
    std::vector<Stored> out;
    Query q(claimable);
    q.bind(1, now).bind(2, std::int64_t{limit});
    while (q.next()) out.push_back({q.integer(0), std::string(q.text(1)), std::string(q.text(2))});
    return out;
  }

  std::optional<Stored> parked_message(std::int64_t id) {
    Query q(parked_by_id);
    q.bind(1, id);
    if (!q.next()) return std::nullopt;
    return Stored{id, std::string(q.text(0)), std::string(q.text(1))};
  }

  // Makes the group's lowest unparked message its head, after its head left.
  void promote_next(std::string_view group_id) { Query(promote).bind(1, group_id).run(); }

  // Runs `stmt` (an on_held_sql statement) for the claim `token` names; `more`
  // binds the statement's own parameters. Returns the RETURNING group_id when
  // the claim is still active; nullopt when `token` is stale.
  template <class Bind>
  std::optional<std::string> on_held(Statement& stmt, const Token& token, double now, Bind more) {
    Query q(stmt);
    q.bind(1, token.id).bind(2, token.delivery).bind(3, now);
    more(q, now);
    if (!q.next()) return std::nullopt;
    std::string group_id(q.text(0));
    q.run();
    return group_id;
  }
};

Db::Db(Connection& c)
    : conn(c),
      insert_message(conn,
                     "INSERT INTO queue_messages (group_id, event, enqueued_at, visible_at, head)"
                     " VALUES (?1, ?2, ?3, ?3,"
                     " NOT EXISTS (SELECT 1 FROM queue_messages WHERE group_id = ?1 AND parked_at IS NULL))"),
      // A dedupe id seen before the window began is new again.
      remember_dedupe(conn,
                      "INSERT INTO queue_dedupe (dedupe_id, published_at) VALUES (?1, ?2)"
                      " ON CONFLICT (dedupe_id) DO UPDATE SET published_at = excluded.published_at"
                      " WHERE published_at <= ?3"),
      prune_dedupe(conn, "DELETE FROM queue_dedupe WHERE published_at <= ?1"),
      claimable(conn, "SELECT id, group_id, event FROM queue_messages WHERE head = 1 AND visible_at <= ?1"
                      " ORDER BY id LIMIT ?2"),
      // A claim that is found not to have ended has expired: it counts now.
      take(conn,
           "UPDATE queue_messages SET attempts = attempts + leased, leased = 1, deliveries = deliveries + 1,"
           " visible_at = ?2 WHERE id = ?1 RETURNING attempts, deliveries"),
      park_unreadable(conn,
                      "UPDATE queue_messages SET attempts = attempts + leased, leased = 0, head = 0, parked_at = ?2,"
                      " last_error = ?3 WHERE id = ?1"),
      promote(conn,
              "UPDATE queue_messages SET head = 1 WHERE id ="
              " (SELECT MIN(id) FROM queue_messages WHERE group_id = ?1 AND parked_at IS NULL)"),
      ack(conn, on_held_sql("DELETE FROM queue_messages", "RETURNING group_id")),
      // nack (?4 = 1) and defer (?4 = 0).
      release(conn, on_held_sql("UPDATE queue_messages SET attempts = attempts + ?4, leased = 0, visible_at = ?5",
                                "RETURNING group_id")),
      extend(conn, on_held_sql("UPDATE queue_messages SET visible_at = ?4", "RETURNING group_id")),
      park(conn, on_held_sql("UPDATE queue_messages SET attempts = attempts + 1, leased = 0, head = 0,"
                             " parked_at = ?3, last_error = ?4",
                             "RETURNING group_id")),
      list_parked(conn,
                  "SELECT id, group_id, event, attempts, last_error FROM queue_messages WHERE parked_at IS NOT NULL"
                  " ORDER BY id"),
      parked_ids(conn, "SELECT id FROM queue_messages WHERE parked_at IS NOT NULL ORDER BY id"),
      parked_by_id(conn, "SELECT group_id, event FROM queue_messages WHERE id = ?1 AND parked_at IS NOT NULL"),
      delete_message(conn, "DELETE FROM queue_messages WHERE id = ?1"),
      // One statement, so the three answers come from one snapshot. The
      // oldest pending message is a head: the lowest id of its group.
      backlog(conn,
              "SELECT (SELECT COUNT(*) FROM queue_messages WHERE parked_at IS NULL),"
              " (SELECT COUNT(*) FROM queue_messages WHERE parked_at IS NOT NULL),"
              " (SELECT enqueued_at FROM queue_messages WHERE head = 1 ORDER BY id LIMIT 1)") {}

}  // namespace

struct SqliteTransport::Impl {
  std::string path;
  std::mutex mu;
  // One connection behind one mutex, as in SqliteStore: the file takes one
  // writer at a time anyway. Parallelism comes from several processes.
  std::unique_ptr<Connection> conn;  // declared first: outlives db's statements
  std::unique_ptr<Db> db;            // null once closed
  // When this object last pruned the dedupe table: once per window is
  // enough to keep it at about two windows of ids.
  double last_prune = 0;

  // The open database; the caller holds `mu`.
  Db& open() {
    if (!db) throw BackendError("sqlite", "TransportClosed", path + ": the transport is closed");
    return *db;
  }

  // Runs `update` (an on_held_sql statement) for `lease`'s claim
  // and, when it took the message out of its group, promotes the next one.
  template <class Bind>
  bool on_held(const Lease& lease, Statement Db::*update, bool leaves_group, Bind more) {
    const auto token = Token::parse(lease.token);
    std::lock_guard lock(mu);
    Db& d = open();
    if (!token) return false;
    return transaction(d.conn, [&] {
      const auto group_id = d.on_held(d.*update, *token, wall_now(), more);
      if (group_id && leaves_group) d.promote_next(*group_id);
      return group_id.has_value();
    });
  }
};

SqliteTransport::SqliteTransport(std::string path, SqliteTransportOptions options) : impl_(std::make_unique<Impl>()) {
  impl_->path = std::move(path);
  impl_->conn = open_database(impl_->path, options);
  impl_->db = std::make_unique<Db>(*impl_->conn);
}

SqliteTransport::~SqliteTransport() = default;

const std::string& SqliteTransport::path() const noexcept { return impl_->path; }

void SqliteTransport::publish(std::span<const Publication> messages) {
  transport::check_publications(messages);
  // Serialized before the transaction, so the write lock is held only for the writes.
  std::vector<std::string> events;
  events.reserve(messages.size());
  for (const Publication& m : messages) events.push_back(to_json(m.event));

  std::lock_guard lock(impl_->mu);
  Db& db = impl_->open();
  if (messages.empty()) return;
  transaction(db.conn, [&] {
    const double now = wall_now();
    if (now - impl_->last_prune >= seconds(kDedupeWindow)) {
      Query(db.prune_dedupe).bind(1, now - seconds(kDedupeWindow)).run();
      impl_->last_prune = now;  // a rollback only makes the next prune come early
    }
    for (std::size_t i = 0; i < messages.size(); ++i)
      if (!messages[i].dedupe_id || db.remember(*messages[i].dedupe_id, now))
        db.append(messages[i].group_id, events[i], now);
  });
}

std::vector<Lease> SqliteTransport::claim(std::string_view /*worker_id*/, std::chrono::milliseconds visibility,
                                          int max_messages) {
  transport::check_duration(visibility, "visibility");
  transport::check_max_messages(max_messages);
  std::lock_guard lock(impl_->mu);
  Db& db = impl_->open();
  return transaction(db.conn, [&] {
    const double now = wall_now();
    std::vector<Stored> heads;
    std::vector<Lease> out;
    // Decode first, lease after: a head that does not decode is parked, which
    // may uncover a claimable message behind it, so look again after one.
    for (bool clean = false; !clean;) {
      clean = true;
      heads = db.heads(now, max_messages);
      out.clear();
      for (const Stored& head : heads) {
        try {
          out.push_back({head.group_id, parse_event(head.event), {}, 0, {}});
        } catch (const DecodeError& e) {
          const std::string why =
              "message " + std::to_string(head.id) + ": the stored event does not decode: " + e.what();
          Query(db.park_unreadable).bind(1, head.id).bind(2, now).bind(3, why).run();
          db.promote_next(head.group_id);
          clean = false;
        }
      }
    }
    for (std::size_t i = 0; i < out.size(); ++i) {
      Query q(db.take);
      q.bind(1, heads[i].id).bind(2, now + seconds(visibility));
      q.next();
      out[i].attempts = q.integer(0);
      out[i].token = Token{heads[i].id, q.integer(1)}.text();
    }
    return out;
  });
}

bool SqliteTransport::ack(const Lease& lease) {
  return impl_->on_held(lease, &Db::ack, true, [](Query&, double) {});
}

bool SqliteTransport::nack(const Lease& lease, std::chrono::milliseconds delay) {
  transport::check_duration(delay, "delay");
  return impl_->on_held(lease, &Db::release, false,
                        [&](Query& q, double now) { q.bind(4, std::int64_t{1}).bind(5, now + seconds(delay)); });
}

bool SqliteTransport::defer(const Lease& lease, std::chrono::milliseconds delay) {
  transport::check_duration(delay, "delay");
  return impl_->on_held(lease, &Db::release, false,
                        [&](Query& q, double now) { q.bind(4, std::int64_t{0}).bind(5, now + seconds(delay)); });
}

bool SqliteTransport::extend(const Lease& lease, std::chrono::milliseconds visibility) {
  transport::check_duration(visibility, "visibility");
  return impl_->on_held(lease, &Db::extend, false,
                        [&](Query& q, double now) { q.bind(4, now + seconds(visibility)); });
}

bool SqliteTransport::park(const Lease& lease, std::string_view last_error) {
  return impl_->on_held(lease, &Db::park, true, [&](Query& q, double) { q.bind(4, last_error); });
}

std::vector<ParkedMessage> SqliteTransport::parked() {
  std::lock_guard lock(impl_->mu);
  Db& db = impl_->open();
  return store::sqlite::retry_busy([&] {
    std::vector<ParkedMessage> out;
    Query q(db.list_parked);
    while (q.next()) {
      ParkedMessage m;
      m.id = std::to_string(q.integer(0));
      m.group_id = q.text(1);
      // An event parked for not decoding is listed with an empty event; its
      // last_error says why.
      try {
        m.event = parse_event(q.text(2));
      } catch (const DecodeError&) {
      }
      m.attempts = q.integer(3);
      m.last_error = q.text(4);
      out.push_back(std::move(m));
    }
    return out;
  });
}

std::int64_t SqliteTransport::requeue(std::optional<std::string_view> parked_id) {
  std::lock_guard lock(impl_->mu);
  Db& db = impl_->open();
  const auto only = parked_id ? transport::parse_message_id(*parked_id) : std::nullopt;
  if (parked_id && !only) return 0;
  return transaction(db.conn, [&] {
    std::vector<std::int64_t> ids;
    if (only) {
      ids.push_back(*only);
    } else {
      Query q(db.parked_ids);
      while (q.next()) ids.push_back(q.integer(0));
    }
    // One by one, in id order: each append sees the one before, so a group's
    // parked messages go back in their own order behind one head.
    const double now = wall_now();
    std::int64_t count = 0;
    for (std::int64_t id : ids) {
      const auto message = db.parked_message(id);
      if (!message) continue;
      db.append(message->group_id, message->event, now);
      Query(db.delete_message).bind(1, id).run();
      ++count;
    }
    return count;
  });
}

TransportBacklog SqliteTransport::backlog() {
  std::lock_guard lock(impl_->mu);
  Db& db = impl_->open();
  return store::sqlite::retry_busy([&] {
    Query q(db.backlog);
    q.next();
    TransportBacklog out;
    out.pending = q.integer(0);
    out.parked = q.integer(1);
    if (!q.is_null(2)) {
      // Clamped: another process's clock may run a little ahead of ours.
      const double age = std::max(0.0, wall_now() - q.real(2));
      out.oldest_age = std::chrono::milliseconds(static_cast<std::int64_t>(age * 1000));
    }
    return out;
  });
}

void SqliteTransport::close() {
  std::lock_guard lock(impl_->mu);
  impl_->db.reset();
  impl_->conn.reset();
}

}  // namespace harel
