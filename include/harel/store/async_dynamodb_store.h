// AsyncDynamoDBStore: DynamoDBStore's operations as Asio asynchronous
// operations, natively — one event-loop thread keeps many requests in flight
// over the client's keep-alive pool; no thread pool hides blocking calls.
//
// Same tables, requests, CAS, conflict translation, seq allocation and trace
// ring as DynamoDBStore: both drive the one implementation in
// src/store/dynamodb/operations.h. Every operation follows Asio's universal
// model, so the completion token picks the style:
//
//   auto exe = co_await store.async_load("x1", boost::asio::use_awaitable);
//   store.async_load("x1", [](std::exception_ptr e, std::optional<Execution> exe) { ... });
//   std::future<std::optional<Execution>> f = store.async_load("x1", boost::asio::use_future);
//
// Completion signatures are void(std::exception_ptr, T) (void(std::exception_ptr)
// for operations without a result); the exception is what the blocking store
// would have thrown (StoreConflict, InvalidArgument, DynamoError, ...).
//
// Lifetimes: ids and strings are copied when the operation starts. `exe` and
// `effects` of async_commit are used until completion and must outlive it
// (like an Asio buffer); exe.version is bumped when the commit succeeds.
//
// Cancellation (the completion handler's cancellation slot, e.g. via
// boost::asio::bind_cancellation_slot): takes effect between DynamoDB calls.
// The operation then completes with system_error(operation_aborted) and sends
// nothing more; a request already sent finishes on the server. So a commit
// cancelled before its TransactWriteItems was sent writes nothing (a
// reserved seq block may be wasted, which is harmless); one cancelled later
// completes normally. Per-operation timeouts: emit the cancellation from a
// timer.
//
// Thread safety: operations may be started from any thread; completion
// handlers run on their associated executor (default: the client's).
#pragma once

#include <exception>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <boost/asio/any_io_executor.hpp>

#include "harel/detail/async_initiate.h"
#include "harel/store/dynamodb_store.h"

namespace harel {

class AsyncDynamoDBStore {
 public:
  template <class T>
  using Handler = detail::ValueHandler<T>;
  using VoidHandler = detail::DoneHandler;

  // Uses `client` (the caller's: close() leaves it open). Creates no tables.
  explicit AsyncDynamoDBStore(std::shared_ptr<dynamodb::DynamoClient> client, DynamoDBStoreOptions options = {});
  ~AsyncDynamoDBStore();
  AsyncDynamoDBStore(const AsyncDynamoDBStore&) = delete;
  AsyncDynamoDBStore& operator=(const AsyncDynamoDBStore&) = delete;

  // Builds an HTTP client on `executor` for `connect` (settings found as AWS
  // tools find them), retries until the endpoint answers, ensures the tables.
  // Completes with void(std::exception_ptr, std::unique_ptr<AsyncDynamoDBStore>);
  // the store owns that client.
  template <class Token>
  static auto async_create(boost::asio::any_io_executor executor, DynamoDBConnect connect, Token&& token) {
    return boost::asio::async_initiate<Token, void(std::exception_ptr, std::unique_ptr<AsyncDynamoDBStore>)>(
        [](auto handler, boost::asio::any_io_executor ex, DynamoDBConnect c) {
          start_create(std::move(ex), std::move(c), std::move(handler));
        },
        token, std::move(executor), std::move(connect));
  }

  boost::asio::any_io_executor get_executor() const;
  const std::string& prefix() const noexcept;
  std::int64_t trace_max() const noexcept;
  void set_trace_max(std::int64_t n);

  template <class Token>
  auto async_ensure_tables(Token&& token) {
    return detail::initiate_done(token, [this](VoidHandler h) { start_ensure_tables(std::move(h)); });
  }
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
  template <class Token>
  auto async_list_executions(ListQuery query, Token&& token) {
    return detail::initiate<ExecutionPage>(
        token, [this, q = std::move(query)](auto h) mutable { start_list_executions(std::move(q), std::move(h)); });
  }
  // Completes with void(std::exception_ptr, CommitReceipt); on success
  // exe.version is the committed version.
  template <class Token>
  auto async_commit(Execution& exe, const Effects& effects, Token&& token) {
    return detail::initiate<CommitReceipt>(token,
                                   [this, &exe, &effects](auto h) { start_commit(exe, effects, std::move(h)); });
  }
  template <class Token>
  auto async_save(Execution& exe, Token&& token) {
    return async_commit(exe, kNoEffects, std::forward<Token>(token));
  }
  template <class Token>
  auto async_is_processed(std::string_view execution_id, std::string_view event_id, Token&& token) {
    return detail::initiate<bool>(token, [this, id = std::string(execution_id), ev = std::string(event_id)](auto h) mutable {
      start_is_processed(std::move(id), std::move(ev), std::move(h));
    });
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
  template <class Token>
  auto async_read_trace(std::string_view execution_id, Token&& token) {
    return detail::initiate<std::vector<TraceStep>>(
        token, [this, id = std::string(execution_id)](auto h) mutable { start_read_trace(std::move(id), std::move(h)); });
  }
  template <class Token>
  auto async_append_trace(std::string_view execution_id, TraceStep entry, Token&& token) {
    return detail::initiate_done(token, [this, id = std::string(execution_id), e = std::move(entry)](VoidHandler h) mutable {
      start_append_trace(std::move(id), std::move(e), std::move(h));
    });
  }

  // Releases the client if this store created it (async_create); an injected
  // client stays the caller's. Operations started afterwards raise
  // BackendError "StoreClosed".
  void close();

 private:
  static const Effects kNoEffects;

  static void start_create(boost::asio::any_io_executor executor, DynamoDBConnect connect,
                           Handler<std::unique_ptr<AsyncDynamoDBStore>> handler);
  void start_ensure_tables(VoidHandler handler);
  void start_load(std::string id, Handler<std::optional<Execution>> handler);
  void start_load_for_event(std::string id, std::string event_id, Handler<LoadForEvent> handler);
  void start_list_executions(ListQuery query, Handler<ExecutionPage> handler);
  void start_commit(Execution& exe, const Effects& effects, Handler<CommitReceipt> handler);
  void start_is_processed(std::string id, std::string event_id, Handler<bool> handler);
  void start_pending_outbox(Handler<std::vector<OutboxEntry>> handler);
  void start_ack_outbox(std::int64_t seq, VoidHandler handler);
  void start_pending_spawns(Handler<std::vector<SpawnEntry>> handler);
  void start_ack_spawn(std::int64_t seq, VoidHandler handler);
  void start_due_timers(EpochSeconds now, Handler<std::vector<DueTimer>> handler);
  void start_delete_timer(std::string id, std::string path, EpochSeconds fire_at, Handler<bool> handler);
  void start_read_trace(std::string id, Handler<std::vector<TraceStep>> handler);
  void start_append_trace(std::string id, TraceStep entry, VoidHandler handler);

  struct Impl;
  std::shared_ptr<Impl> impl_;
};

}  // namespace harel
