#include "harel/store/sqlite_store.h"

#include <algorithm>
#include <atomic>
#include <limits>
#include <map>
#include <mutex>
#include <thread>
#include <utility>

#include "harel/errors.h"
#include "harel/json/write.h"
#include "harel/model/codec.h"
#include "store/listing.h"
#include "store/sqlite/connection.h"
#include "store/sqlite/schema.h"
#include "store/trace_ring.h"
#include "store/validate.h"

namespace harel {

using store::sqlite::Connection;
using store::sqlite::Query;
using store::sqlite::Statement;

namespace {

// Spawn contexts and trace entries are written as Python's json.dumps writes
// them, like the reference store, so either implementation reads the other's
// rows; the Execution and events use the pydantic (compact) form.
std::string python_json(const boost::json::object& obj) {
  std::string out;
  json::write(out, obj, json::Style::Python);
  return out;
}

// What a commit writes besides the Execution JSON, serialized before the
// transaction so the write lock is held only for the writes themselves.
struct EffectTexts {
  std::vector<std::string> events;    // per emit
  std::vector<std::string> contexts;  // per spawn
  std::optional<std::string> trace;

  explicit EffectTexts(const Effects& effects) {
    events.reserve(effects.emits.size());
    for (const auto& emit : effects.emits) events.push_back(to_json(emit.event));
    contexts.reserve(effects.spawns.size());
    for (const auto& spawn : effects.spawns) contexts.push_back(python_json(spawn.context));
    if (effects.trace) trace = python_json(*effects.trace);
  }
};

// Opens the file, migrates it to the current schema, then switches to WAL.
// The schema check comes first so a too-new file is rejected unchanged.
std::unique_ptr<Connection> open_database(const std::string& path, const SqliteOptions& options) {
  auto conn = std::make_unique<Connection>(path, options.busy_timeout);
  store::sqlite::retry_busy([&] {
    conn->exec(options.sync_full ? "PRAGMA synchronous = FULL" : "PRAGMA synchronous = NORMAL");
    store::sqlite::migrate(*conn);
    // WAL persists in the file. On :memory: (or a filesystem without shared
    // memory) SQLite keeps a rollback journal: the same guarantees, only
    // readers then block the writer.
    conn->exec("PRAGMA journal_mode = WAL");
  });
  return conn;
}

// Every statement the store runs, prepared once over a migrated connection.
struct Db {
  Connection& conn;
  Statement load;
  Statement load_for_event;
  Statement stored_version;
  Statement insert_execution;
  Statement update_execution;
  Statement insert_outbox;
  Statement insert_spawn;
  Statement mark_processed;
  Statement schedule_timer;
  Statement cancel_timer;
  Statement max_trace_index;
  Statement put_trace;
  Statement drop_trace;
  Statement is_processed;
  Statement pending_outbox;
  Statement ack_outbox;
  Statement pending_spawns;
  Statement ack_spawn;
  Statement due_timers;
  Statement delete_timer;
  Statement read_trace;
  // list_executions' SQL depends on which filters are set; keyed by the SQL.
  std::map<std::string, Statement, std::less<>> listings;

  explicit Db(Connection& c);

  Statement& listing(const std::string& sql) {
    auto it = listings.find(sql);
    if (it == listings.end()) it = listings.try_emplace(sql, conn, sql).first;
    return it->second;
  }

  // A stored row's data, decoded by `decode` (parse_execution or
  // parse_execution_summary); data that does not decode is a CorruptRecord.
  template <class Decode>
  static auto parse(std::string_view id, std::string_view data, Decode decode) {
    try {
      return decode(data);
    } catch (const DecodeError& e) {
      throw CorruptRecord("executions", std::string(id), e.what());
    }
  }

  std::optional<std::int64_t> version_of(const std::string& id) {
    Query q(stored_version);
    q.bind(1, id);
    if (!q.next()) return std::nullopt;
    return q.integer(0);
  }

  // Appends a step at `index` and drops the one that fell out of the ring.
  void write_trace(const std::string& id, std::int64_t index, const std::string& entry, std::int64_t trace_max) {
    Query(put_trace).bind(1, id).bind(2, index).bind(3, entry).run();
    if (auto drop = store::trace_index_to_drop(index, trace_max)) Query(drop_trace).bind(1, id).bind(2, *drop).run();
  }

  std::int64_t last_trace_index(const std::string& id) {
    Query q(max_trace_index);
    q.bind(1, id);
    q.next();
    return q.is_null(0) ? -1 : q.integer(0);
  }

  // The body of commit's transaction. `data` already carries expected + 1.
  // AUTOINCREMENT under the write lock gives one commit consecutive seqs.
  CommitReceipt write_commit(const Execution& exe, std::int64_t expected, const std::string& data,
                             const Effects& effects, const EffectTexts& texts, std::int64_t trace_max) {
    // The CAS first: a lost race stops before any other write.
    {
      Query q(expected == 0 ? insert_execution : update_execution);
      q.bind(1, exe.id).bind(2, expected + 1).bind(3, exe.definition_id).bind(4, to_string(exe.status));
      q.bind_nullable(5, exe.parent_id).bind(6, data);
      if (expected != 0) q.bind(7, expected);
      q.run();
    }
    if (conn.changes() == 0) throw StoreConflict(exe.id, expected, version_of(exe.id));

    CommitReceipt receipt;
    for (std::size_t i = 0; i < effects.emits.size(); ++i) {
      Query(insert_outbox).bind_nullable(1, effects.emits[i].target_id).bind(2, texts.events[i]).run();
      if (i == 0) receipt.first_outbox_seq = conn.last_insert_rowid();
    }
    for (std::size_t i = 0; i < effects.spawns.size(); ++i) {
      const SpawnRequest& spawn = effects.spawns[i];
      Query(insert_spawn).bind(1, exe.id).bind(2, spawn.child_id).bind(3, spawn.root_path).bind(4, texts.contexts[i]).run();
      if (i == 0) receipt.first_spawn_seq = conn.last_insert_rowid();
    }
    if (effects.processed_event_id) {
      Query(mark_processed).bind(1, exe.id).bind(2, *effects.processed_event_id).run();
      // The mark is the dedupe: finding it already there cancels the commit.
      if (conn.changes() == 0) throw AlreadyProcessed(exe.id, *effects.processed_event_id, expected);
    }
    for (const TimerOp& op : effects.timers) {
      if (op.action == TimerOp::Action::Schedule)
        Query(schedule_timer).bind(1, exe.id).bind(2, op.path).bind(3, op.fire_at).run();
      else
        Query(cancel_timer).bind(1, exe.id).bind(2, op.path).run();
    }
    if (texts.trace)
      write_trace(exe.id, store::next_trace_index(*effects.trace, last_trace_index(exe.id)), *texts.trace, trace_max);
    return receipt;
  }
};

Db::Db(Connection& c)
    : conn(c),
      load(conn, "SELECT data FROM executions WHERE id = ?1"),
      load_for_event(conn,
                     "SELECT (SELECT data FROM executions WHERE id = ?1),"
                     " EXISTS (SELECT 1 FROM processed WHERE execution_id = ?1 AND event_id = ?2)"),
      stored_version(conn, "SELECT version FROM executions WHERE id = ?1"),
      insert_execution(conn,
                       "INSERT INTO executions (id, version, definition_id, status, parent_id, data)"
                       " VALUES (?1, ?2, ?3, ?4, ?5, ?6) ON CONFLICT (id) DO NOTHING"),
      update_execution(conn,
                       "UPDATE executions SET version = ?2, definition_id = ?3, status = ?4, parent_id = ?5, data = ?6"
                       " WHERE id = ?1 AND version = ?7"),
      insert_outbox(conn, "INSERT INTO outbox (target_id, event) VALUES (?1, ?2)"),
      insert_spawn(conn, "INSERT INTO spawns (parent_id, child_id, root_path, context) VALUES (?1, ?2, ?3, ?4)"),
      mark_processed(conn, "INSERT INTO processed (execution_id, event_id) VALUES (?1, ?2) ON CONFLICT DO NOTHING"),
      schedule_timer(conn,
                     "INSERT INTO timers (execution_id, path, fire_at) VALUES (?1, ?2, ?3)"
                     " ON CONFLICT (execution_id, path) DO UPDATE SET fire_at = excluded.fire_at"),
      cancel_timer(conn, "DELETE FROM timers WHERE execution_id = ?1 AND path = ?2"),
      max_trace_index(conn, "SELECT MAX(idx) FROM trace WHERE execution_id = ?1"),
      put_trace(conn, "INSERT OR REPLACE INTO trace (execution_id, idx, entry) VALUES (?1, ?2, ?3)"),
      drop_trace(conn, "DELETE FROM trace WHERE execution_id = ?1 AND idx = ?2"),
      is_processed(conn, "SELECT 1 FROM processed WHERE execution_id = ?1 AND event_id = ?2"),
      pending_outbox(conn, "SELECT seq, target_id, event FROM outbox ORDER BY seq"),
      ack_outbox(conn, "DELETE FROM outbox WHERE seq = ?1"),
      pending_spawns(conn, "SELECT seq, parent_id, child_id, root_path, context FROM spawns ORDER BY seq"),
      ack_spawn(conn, "DELETE FROM spawns WHERE seq = ?1"),
      due_timers(conn,
                 "SELECT execution_id, path, fire_at FROM timers WHERE fire_at <= ?1"
                 " ORDER BY fire_at, execution_id, path"),
      delete_timer(conn, "DELETE FROM timers WHERE execution_id = ?1 AND path = ?2 AND fire_at = ?3"),
      read_trace(conn, "SELECT idx, entry FROM trace WHERE execution_id = ?1 ORDER BY idx") {}

}  // namespace

struct SqliteStore::Impl {
  std::string path;
  std::mutex mu;
  // The thread running write_group: it holds `mu` and the open transaction,
  // so the writes it makes run inside them instead of locking again.
  std::atomic<std::thread::id> group_owner{};
  // One connection behind one mutex: SQLite lets one writer at a time at the
  // file anyway, and a lone connection keeps every statement prepared once.
  // Parallelism comes from several processes or stores on the file (WAL).
  std::unique_ptr<Connection> conn;  // declared first: outlives db's statements
  std::unique_ptr<Db> db;            // null once closed

  // The open database; the caller holds `mu`.
  Db& open() {
    if (!db) throw BackendError("sqlite", "SQLITE_MISUSE", path + ": the store is closed");
    return *db;
  }

  // Runs `body(db)` as one write: its own transaction, or — inside
  // write_group on this thread — inside the group's (which gives each write
  // a savepoint).
  template <class Body>
  auto write(Body&& body) -> std::invoke_result_t<Body&, Db&> {
    using T = std::invoke_result_t<Body&, Db&>;
    if (group_owner.load() == std::this_thread::get_id()) return body(*db);
    std::lock_guard lock(mu);
    Db& d = open();
    return store::sqlite::retry_busy([&]() -> T {
      if constexpr (std::is_void_v<T>) {
        store::sqlite::write_transaction(d.conn, [&] { body(d); });
      } else {
        std::optional<T> out;
        store::sqlite::write_transaction(d.conn, [&] { out.emplace(body(d)); });
        return std::move(*out);
      }
    });
  }
};

SqliteStore::SqliteStore(std::string path, SqliteOptions options) : impl_(std::make_unique<Impl>()) {
  set_trace_max(options.trace_max);
  impl_->path = std::move(path);
  impl_->conn = open_database(impl_->path, options);
  impl_->db = std::make_unique<Db>(*impl_->conn);
}

SqliteStore::~SqliteStore() = default;

const std::string& SqliteStore::path() const noexcept { return impl_->path; }

std::optional<Execution> SqliteStore::load(std::string_view execution_id) {
  store::check_id(execution_id, "execution id");
  std::lock_guard lock(impl_->mu);
  Db& db = impl_->open();
  return store::sqlite::retry_busy([&]() -> std::optional<Execution> {
    Query q(db.load);
    q.bind(1, execution_id);
    if (!q.next()) return std::nullopt;
    return Db::parse(execution_id, q.text(0), parse_execution);
  });
}

LoadForEvent SqliteStore::load_for_event(std::string_view execution_id, std::string_view event_id) {
  store::check_id(execution_id, "execution id");
  store::check_id(event_id, "event id");
  std::lock_guard lock(impl_->mu);
  Db& db = impl_->open();
  // One statement, so both answers come from one snapshot.
  return store::sqlite::retry_busy([&] {
    Query q(db.load_for_event);
    q.bind(1, execution_id).bind(2, event_id);
    q.next();
    LoadForEvent out;
    if (!q.is_null(0)) out.execution = Db::parse(execution_id, q.text(0), parse_execution);
    out.already_processed = q.integer(1) != 0;
    return out;
  });
}

ExecutionPage SqliteStore::list_executions(const ListQuery& query) {
  store::check_query(query);
  const std::optional<std::string> after =
      query.cursor ? std::optional(store::decode_after_cursor(*query.cursor)) : std::nullopt;
  std::vector<std::string_view> statuses;
  for (Status s : query.statuses) statuses.push_back(to_string(s));
  std::sort(statuses.begin(), statuses.end());
  statuses.erase(std::unique(statuses.begin(), statuses.end()), statuses.end());

  // The filters run in SQL. One row past the page tells whether another page
  // exists, so next_cursor is never set on the last page.
  std::string sql = "SELECT id, data FROM executions WHERE TRUE";
  if (after) sql += " AND id > ?";
  if (query.definition_id) sql += " AND definition_id = ?";
  if (!statuses.empty()) {
    sql += " AND status IN (?";
    for (std::size_t i = 1; i < statuses.size(); ++i) sql += ", ?";
    sql += ')';
  }
  if (query.roots_only) sql += " AND parent_id IS NULL";
  sql += " ORDER BY id LIMIT ?";

  std::lock_guard lock(impl_->mu);
  Db& db = impl_->open();
  Statement& stmt = db.listing(sql);
  return store::sqlite::retry_busy([&] {
    Query q(stmt);
    int param = 0;
    if (after) q.bind(++param, *after);
    if (query.definition_id) q.bind(++param, *query.definition_id);
    for (std::string_view s : statuses) q.bind(++param, s);
    q.bind(++param, std::min(query.limit, std::numeric_limits<std::int64_t>::max() - 1) + 1);
    ExecutionPage page;
    while (q.next()) {
      if (static_cast<std::int64_t>(page.items.size()) == query.limit) {
        page.next_cursor = store::encode_after_cursor(page.items.back().id);
        break;
      }
      page.items.push_back(Db::parse(q.text(0), q.text(1), parse_execution_summary));
    }
    return page;
  });
}

CommitReceipt SqliteStore::commit(Execution& exe, const Effects& effects) {
  store::check_commit(exe, effects);
  const std::int64_t expected = exe.version;
  const std::int64_t trace_max = this->trace_max();
  // The stored JSON carries the committed version. exe.version itself moves
  // only once the transaction is committed, so every failure leaves it as is.
  const std::string data = to_json(exe, expected + 1);
  const EffectTexts texts(effects);

  const CommitReceipt receipt =
      impl_->write([&](Db& db) { return db.write_commit(exe, expected, data, effects, texts, trace_max); });
  exe.version = expected + 1;
  return receipt;
}

bool SqliteStore::is_processed(std::string_view execution_id, std::string_view event_id) {
  store::check_id(execution_id, "execution id");
  store::check_id(event_id, "event id");
  std::lock_guard lock(impl_->mu);
  Db& db = impl_->open();
  return store::sqlite::retry_busy([&] { return Query(db.is_processed).bind(1, execution_id).bind(2, event_id).next(); });
}

std::vector<OutboxEntry> SqliteStore::pending_outbox() {
  std::lock_guard lock(impl_->mu);
  Db& db = impl_->open();
  return store::sqlite::retry_busy([&] {
    std::vector<OutboxEntry> out;
    Query q(db.pending_outbox);
    while (q.next()) {
      OutboxEntry entry;
      entry.seq = q.integer(0);
      if (!q.is_null(1)) entry.target_id = std::string(q.text(1));
      try {
        entry.event = parse_event(q.text(2));
      } catch (const DecodeError& e) {
        throw CorruptRecord("outbox", std::to_string(entry.seq), e.what());
      }
      out.push_back(std::move(entry));
    }
    return out;
  });
}

void SqliteStore::ack_outbox(std::int64_t seq) {
  impl_->write([&](Db& db) { Query(db.ack_outbox).bind(1, seq).run(); });
}

std::vector<SpawnEntry> SqliteStore::pending_spawns() {
  std::lock_guard lock(impl_->mu);
  Db& db = impl_->open();
  return store::sqlite::retry_busy([&] {
    std::vector<SpawnEntry> out;
    Query q(db.pending_spawns);
    while (q.next()) {
      SpawnEntry entry;
      entry.seq = q.integer(0);
      entry.parent_id = q.text(1);
      entry.child_id = q.text(2);
      entry.root_path = q.text(3);
      try {
        entry.context = parse_object(q.text(4), "context");
      } catch (const DecodeError& e) {
        throw CorruptRecord("spawns", std::to_string(entry.seq), e.what());
      }
      out.push_back(std::move(entry));
    }
    return out;
  });
}

void SqliteStore::ack_spawn(std::int64_t seq) {
  impl_->write([&](Db& db) { Query(db.ack_spawn).bind(1, seq).run(); });
}

std::vector<DueTimer> SqliteStore::due_timers(EpochSeconds now) {
  std::lock_guard lock(impl_->mu);
  Db& db = impl_->open();
  return store::sqlite::retry_busy([&] {
    std::vector<DueTimer> out;
    Query q(db.due_timers);
    q.bind(1, now);
    while (q.next()) out.push_back({std::string(q.text(0)), std::string(q.text(1)), q.real(2)});
    return out;
  });
}

bool SqliteStore::delete_timer(std::string_view execution_id, std::string_view path, EpochSeconds fire_at) {
  store::check_id(execution_id, "execution id");
  return impl_->write([&](Db& db) {
    Query(db.delete_timer).bind(1, execution_id).bind(2, path).bind(3, fire_at).run();
    return db.conn.changes() > 0;
  });
}

std::vector<TraceStep> SqliteStore::read_trace(std::string_view execution_id) {
  store::check_id(execution_id, "execution id");
  std::lock_guard lock(impl_->mu);
  Db& db = impl_->open();
  return store::sqlite::retry_busy([&] {
    std::vector<TraceStep> out;
    Query q(db.read_trace);
    q.bind(1, execution_id);
    while (q.next()) {
      const std::int64_t index = q.integer(0);
      try {
        out.push_back(store::with_trace_index(parse_object(q.text(1), "entry"), index));
      } catch (const DecodeError& e) {
        throw CorruptRecord("trace", std::string(execution_id) + "/" + std::to_string(index), e.what());
      }
    }
    return out;
  });
}

void SqliteStore::append_trace(std::string_view execution_id, const TraceStep& entry) {
  store::check_id(execution_id, "execution id");
  const std::string id(execution_id);
  const std::string text = python_json(entry);
  const std::int64_t trace_max = this->trace_max();
  std::lock_guard lock(impl_->mu);
  Db& db = impl_->open();
  // A transaction, so max + 1 and the ring drop see no other writer between.
  store::sqlite::retry_busy([&] {
    store::sqlite::write_transaction(db.conn, [&] {
      db.write_trace(id, store::next_trace_index(entry, db.last_trace_index(id)), text, trace_max);
    });
  });
}

std::vector<std::exception_ptr> SqliteStore::write_group(std::span<const std::function<void()>> writes) {
  std::lock_guard lock(impl_->mu);
  std::vector<std::exception_ptr> errors(writes.size());
  Db* db = nullptr;
  try {
    db = &impl_->open();
    // Only taking the write lock is retried: a write that ran may not run twice.
    store::sqlite::retry_busy([&] { db->conn.begin_immediate(); });
  } catch (...) {  // closed, or the lock never granted: nothing of the group was written
    std::fill(errors.begin(), errors.end(), std::current_exception());
    return errors;
  }
  impl_->group_owner = std::this_thread::get_id();
  try {
    for (std::size_t i = 0; i < writes.size(); ++i) {
      db->conn.exec("SAVEPOINT grouped_write");
      try {
        writes[i]();
      } catch (...) {
        errors[i] = std::current_exception();
        db->conn.exec("ROLLBACK TO grouped_write");
      }
      db->conn.exec("RELEASE grouped_write");
    }
    db->conn.commit();
  } catch (...) {  // the transaction itself failed: nothing of the group was written
    db->conn.rollback();
    std::fill(errors.begin(), errors.end(), std::current_exception());
  }
  impl_->group_owner = std::thread::id{};
  return errors;
}

void SqliteStore::close() {
  std::lock_guard lock(impl_->mu);
  impl_->db.reset();
  impl_->conn.reset();
}

}  // namespace harel
