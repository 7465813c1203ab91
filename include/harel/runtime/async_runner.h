// AsyncRunner: DurableRunner on AsyncDynamoDBStore — many executions advanced
// concurrently by one event-loop thread.
//
// Same guarantees and the same step logic as DurableRunner (runner.h): one
// commit per event carrying all its effects, dedupe through the commit's
// mark, StoreConflict → reload and recompute within a budget, relay and
// sweep passes that are safe to run from several workers at once. Each
// operation follows Asio's completion-token model; start as many as you like
// (one per execution you are advancing) and they overlap on the loop.
//
// Lifetimes: the store and definitions must outlive every operation.
#pragma once

#include <exception>
#include <memory>
#include <optional>
#include <string>

#include <boost/asio/any_completion_handler.hpp>
#include <boost/asio/async_result.hpp>

#include "harel/runtime/runner.h"
#include "harel/store/async_dynamodb_store.h"

namespace harel::runtime {

class AsyncRunner {
 public:
  AsyncRunner(AsyncDynamoDBStore& store, std::shared_ptr<const Definitions> definitions, RunnerOptions options = {});

  // Completes with void(std::exception_ptr, Execution); as DurableRunner::create.
  template <class Token>
  auto async_create(std::string definition_id, boost::json::object context, std::optional<std::string> id,
                    Token&& token) {
    return boost::asio::async_initiate<Token, void(std::exception_ptr, Execution)>(
        [this](auto handler, std::string def, boost::json::object ctx, std::optional<std::string> eid) {
          start_create(std::move(def), std::move(ctx), std::move(eid), std::move(handler));
        },
        token, std::move(definition_id), std::move(context), std::move(id));
  }

  // Completes with void(std::exception_ptr, ProcessOutcome); as DurableRunner::process.
  template <class Token>
  auto async_process(std::string execution_id, Event event, Token&& token) {
    return boost::asio::async_initiate<Token, void(std::exception_ptr, ProcessOutcome)>(
        [this](auto handler, std::string id, Event ev) { start_process(std::move(id), std::move(ev), std::move(handler)); },
        token, std::move(execution_id), std::move(event));
  }

  // One relay / sweep pass; complete with void(std::exception_ptr, std::int64_t).
  template <class Token>
  auto async_relay_once(Token&& token) {
    return boost::asio::async_initiate<Token, void(std::exception_ptr, std::int64_t)>(
        [this](auto handler) { start_relay(std::move(handler)); }, token);
  }
  template <class Token>
  auto async_sweep_once(Token&& token) {
    return boost::asio::async_initiate<Token, void(std::exception_ptr, std::int64_t)>(
        [this](auto handler) { start_sweep(std::move(handler)); }, token);
  }

  const RunnerStats& stats() const { return stats_; }

 private:
  template <class T>
  using Handler = boost::asio::any_completion_handler<void(std::exception_ptr, T)>;

  void start_create(std::string definition_id, boost::json::object context, std::optional<std::string> id,
                    Handler<Execution> handler);
  void start_process(std::string id, Event event, Handler<ProcessOutcome> handler);
  void start_relay(Handler<std::int64_t> handler);
  void start_sweep(Handler<std::int64_t> handler);

  struct Impl;
  friend struct Impl;
  AsyncDynamoDBStore& store_;
  std::shared_ptr<const Definitions> definitions_;
  RunnerOptions options_;
  RunnerStats stats_;
};

}  // namespace harel::runtime
