// AsyncExecutionStore: the store operations the runtime needs, as Asio
// asynchronous operations over ANY store, so that one event-loop thread keeps
// many executions in flight whatever the backend.
//
// Three ways to get one:
// * make_async_store(AsyncDynamoDBStore&): natively asynchronous — each
//   operation is the DynamoDB store's own async operation.
// * make_async_store(ExecutionStore&, executor, threads): a blocking store
//   (SQLite, Memory, or the blocking DynamoDB store) whose calls run on
//   `threads` dedicated threads, never on the event loop. SQLite serializes
//   one connection's calls anyway, so one thread per SqliteStore is its
//   natural size. threads == 0 runs each call inline in the initiating
//   function (the loop blocks for it): for MemoryStore, whose calls never
//   wait, and for a blocking facade that runs its own loop.
// * make_async_store(SqliteStore&, executor): group commit. One dedicated
//   thread runs the calls; the writes (commit, acks, delete_timer) that queued
//   up while it was busy run together as one SqliteStore::write_group — one
//   transaction, one fsync — and each completes only once the group is
//   durable. Under load many events share an fsync; alone, a write costs what
//   it always did.
//
// Semantics, errors and guarantees are ExecutionStore's (execution_store.h):
// completion signatures are void(std::exception_ptr, T) (void(std::exception_ptr)
// for operations without a result), the exception being what the blocking
// store would have thrown. Completion handlers run on their associated
// executor (default: get_executor()), never inside the initiating call.
//
// Lifetimes: ids are copied when an operation starts; `exe` and `effects` of
// async_commit are used until completion and must outlive it (like an Asio
// buffer); exe.version is bumped when the commit succeeds. The underlying
// store must outlive the adapter.
#pragma once

#include <exception>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <boost/asio/any_io_executor.hpp>

#include "harel/detail/async_initiate.h"
#include "harel/store/execution_store.h"

namespace harel {

class AsyncDynamoDBStore;
class SqliteStore;

class AsyncExecutionStore {
 public:
  template <class T>
  using Handler = detail::ValueHandler<T>;
  using VoidHandler = detail::DoneHandler;

  virtual ~AsyncExecutionStore() = default;
  AsyncExecutionStore(const AsyncExecutionStore&) = delete;
  AsyncExecutionStore& operator=(const AsyncExecutionStore&) = delete;

  // Where completion handlers run unless they name an executor of their own.
  virtual boost::asio::any_io_executor get_executor() const = 0;

  template <class Token>
  auto async_load(std::string_view execution_id, Token&& token) {
    return detail::initiate<std::optional<Execution>>(
        token, [this, id = std::string(execution_id)](auto h) mutable { start_load(std::move(id), std::move(h)); });
  }
  template <class Token>
  auto async_load_for_event(std::string_view execution_id, std::string_view event_id, Token&& token) {
    return detail::initiate<LoadForEvent>(token, [this, id = std::string(execution_id), ev = std::string(event_id)](auto h) mutable {
      start_load_for_event(std::move(id), std::move(ev), std::move(h));
    });
  }
  // Completes with the CommitReceipt; exe.version is the committed version by then.
  template <class Token>
  auto async_commit(Execution& exe, const Effects& effects, Token&& token) {
    return detail::initiate<CommitReceipt>(token, [this, &exe, &effects](auto h) { start_commit(exe, effects, std::move(h)); });
  }
  template <class Token>
  auto async_pending_outbox(Token&& token) {
    return detail::initiate<std::vector<OutboxEntry>>(token, [this](auto h) { start_pending_outbox(std::move(h)); });
  }
  template <class Token>
  auto async_ack_outbox(std::int64_t seq, Token&& token) {
    return detail::initiate_done(token, [this, seq](VoidHandler h) { start_ack_outbox(seq, std::move(h)); });
  }
  template <class Token>
  auto async_pending_spawns(Token&& token) {
    return detail::initiate<std::vector<SpawnEntry>>(token, [this](auto h) { start_pending_spawns(std::move(h)); });
  }
  template <class Token>
  auto async_ack_spawn(std::int64_t seq, Token&& token) {
    return detail::initiate_done(token, [this, seq](VoidHandler h) { start_ack_spawn(seq, std::move(h)); });
  }
  template <class Token>
  auto async_due_timers(EpochSeconds now, Token&& token) {
    return detail::initiate<std::vector<DueTimer>>(token, [this, now](auto h) { start_due_timers(now, std::move(h)); });
  }
  // Completes with whether a timer was deleted (false: the fire_at guard failed).
  template <class Token>
  auto async_delete_timer(std::string_view execution_id, std::string_view path, EpochSeconds fire_at, Token&& token) {
    return detail::initiate<bool>(token, [this, id = std::string(execution_id), p = std::string(path), fire_at](auto h) mutable {
      start_delete_timer(std::move(id), std::move(p), fire_at, std::move(h));
    });
  }

 protected:
  AsyncExecutionStore() = default;

  virtual void start_load(std::string id, Handler<std::optional<Execution>> handler) = 0;
  virtual void start_load_for_event(std::string id, std::string event_id, Handler<LoadForEvent> handler) = 0;
  virtual void start_commit(Execution& exe, const Effects& effects, Handler<CommitReceipt> handler) = 0;
  virtual void start_pending_outbox(Handler<std::vector<OutboxEntry>> handler) = 0;
  virtual void start_ack_outbox(std::int64_t seq, VoidHandler handler) = 0;
  virtual void start_pending_spawns(Handler<std::vector<SpawnEntry>> handler) = 0;
  virtual void start_ack_spawn(std::int64_t seq, VoidHandler handler) = 0;
  virtual void start_due_timers(EpochSeconds now, Handler<std::vector<DueTimer>> handler) = 0;
  virtual void start_delete_timer(std::string id, std::string path, EpochSeconds fire_at, Handler<bool> handler) = 0;
};

// The DynamoDB store's native async operations behind this interface.
std::unique_ptr<AsyncExecutionStore> make_async_store(AsyncDynamoDBStore& store);

// SQLite with group commit (see the header comment).
std::unique_ptr<AsyncExecutionStore> make_async_store(SqliteStore& store, boost::asio::any_io_executor executor);

// A blocking store's calls on `threads` dedicated threads (0: inline, see the
// header comment); handlers complete on `executor`.
std::unique_ptr<AsyncExecutionStore> make_async_store(ExecutionStore& store, boost::asio::any_io_executor executor,
                                                      int threads);

}  // namespace harel
