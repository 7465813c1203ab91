#include "harel/runtime/async_runner.h"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "harel/errors.h"
#include "runtime/steps.h"

namespace harel::runtime {

namespace asio = boost::asio;

namespace {

// Completion token for store operations inside the coroutines below: the
// (exception_ptr, value) pair comes back as a tuple instead of a throw, so no
// co_await sits inside a try block.
constexpr auto kTuple = asio::as_tuple(asio::use_awaitable);

bool is_conflict(const std::exception_ptr& e) {
  try {
    std::rethrow_exception(e);
  } catch (const StoreConflict&) {
    return true;
  } catch (...) {
    return false;
  }
}

// Runs `body` on the store's executor and completes `handler` with its result.
template <class T, class Body>
void launch(AsyncDynamoDBStore& store, asio::any_completion_handler<void(std::exception_ptr, T)> handler, Body body) {
  asio::co_spawn(store.get_executor(), std::move(body), std::move(handler));
}

}  // namespace

struct AsyncRunner::Impl {
  // Commits a prepared step: nullptr on success, else the failure.
  static asio::awaitable<std::exception_ptr> commit(AsyncRunner& r, Step& step) {
    auto op = r.store_.async_commit(step.execution, step.effects, kTuple);
    auto [error] = co_await std::move(op);
    co_return error;
  }

  static asio::awaitable<ProcessOutcome> process(AsyncRunner& r, std::string id, Event event) {
    for (int attempt = 0;; ++attempt) {
      auto load = r.store_.async_load_for_event(id, event.id, asio::use_awaitable);
      const LoadForEvent loaded = co_await std::move(load);
      if (!loaded.execution) co_return ProcessOutcome::NotFound;
      if (loaded.already_processed) {
        ++r.stats_.duplicates;
        co_return ProcessOutcome::Duplicate;
      }
      Step step = steps::for_event(*r.definitions_, *loaded.execution, event, r.options_.clock(), r.options_.trace);
      const std::exception_ptr error = co_await commit(r, step);
      if (!error) {
        ++r.stats_.events;
        co_return step.handled ? ProcessOutcome::Handled : ProcessOutcome::Unhandled;
      }
      if (!is_conflict(error) || attempt == r.options_.conflict_retries) std::rethrow_exception(error);
      ++r.stats_.conflicts_retried;
    }
  }

  static asio::awaitable<std::int64_t> relay(AsyncRunner& r) {
    std::int64_t handled = 0;
    auto outbox_op = r.store_.async_pending_outbox(asio::use_awaitable);
    const std::vector<OutboxEntry> outbox = co_await std::move(outbox_op);
    for (const OutboxEntry& entry : outbox) {
      // Untargeted events have no receiver in this runtime: acknowledged as undeliverable.
      ProcessOutcome outcome = ProcessOutcome::NotFound;
      if (entry.target_id) outcome = co_await process(r, *entry.target_id, entry.event);
      if (outcome == ProcessOutcome::NotFound) ++r.stats_.undeliverable;
      auto ack = r.store_.async_ack_outbox(entry.seq, asio::use_awaitable);
      co_await std::move(ack);
      ++r.stats_.outbox_delivered;
      ++handled;
    }
    auto spawns_op = r.store_.async_pending_spawns(asio::use_awaitable);
    const std::vector<SpawnEntry> spawns = co_await std::move(spawns_op);
    for (const SpawnEntry& spawn : spawns) {
      auto child_op = r.store_.async_load(spawn.child_id, asio::use_awaitable);
      const bool exists = (co_await std::move(child_op)).has_value();
      if (!exists) {  // else created by an earlier (interrupted) relay
        auto parent_op = r.store_.async_load(spawn.parent_id, asio::use_awaitable);
        const std::optional<Execution> parent = co_await std::move(parent_op);
        if (!parent)
          throw CorruptRecord("spawns", std::to_string(spawn.seq), "parent '" + spawn.parent_id + "' not found");
        Step step = steps::for_child(*r.definitions_, spawn, *parent, r.options_.clock(), r.options_.trace);
        const std::exception_ptr error = co_await commit(r, step);
        if (!error)
          ++r.stats_.spawns_created;
        else if (!is_conflict(error))  // a conflict: another relay created it first
          std::rethrow_exception(error);
      }
      auto ack = r.store_.async_ack_spawn(spawn.seq, asio::use_awaitable);
      co_await std::move(ack);
      ++handled;
    }
    co_return handled;
  }

  static asio::awaitable<std::int64_t> sweep(AsyncRunner& r) {
    std::int64_t fired = 0;
    auto due_op = r.store_.async_due_timers(r.options_.clock(), asio::use_awaitable);
    const std::vector<DueTimer> due = co_await std::move(due_op);
    for (const DueTimer& timer : due) {
      const ProcessOutcome outcome = co_await process(r, timer.execution_id, steps::timeout_event(timer));
      // Guarded on fire_at: a timer re-armed meanwhile (a new fire_at) survives.
      auto del = r.store_.async_delete_timer(timer.execution_id, timer.path, timer.fire_at, asio::use_awaitable);
      co_await std::move(del);
      if (outcome == ProcessOutcome::Handled || outcome == ProcessOutcome::Unhandled) {
        ++r.stats_.timers_fired;
        ++fired;
      }
    }
    co_return fired;
  }
};

AsyncRunner::AsyncRunner(AsyncDynamoDBStore& store, std::shared_ptr<const Definitions> definitions,
                         RunnerOptions options)
    : store_(store), definitions_(std::move(definitions)), options_(std::move(options)) {
  if (!options_.clock) options_.clock = steps::system_now;
  if (options_.conflict_retries < 0) throw InvalidArgument("conflict_retries must not be negative");
}

void AsyncRunner::start_create(std::string definition_id, boost::json::object context, std::optional<std::string> id,
                               Handler<Execution> handler) {
  launch<Execution>(store_, std::move(handler),
                    [this, def = std::move(definition_id), ctx = std::move(context),
                     eid = std::move(id)]() mutable -> asio::awaitable<Execution> {
                      Step step = steps::for_new(*definitions_, def, std::move(ctx), std::move(eid),
                                                 options_.clock(), options_.trace);
                      const std::exception_ptr error = co_await Impl::commit(*this, step);
                      if (error && is_conflict(error))
                        throw InvalidArgument("execution '" + step.execution.id + "' already exists");
                      if (error) std::rethrow_exception(error);
                      co_return step.execution;
                    });
}

void AsyncRunner::start_process(std::string id, Event event, Handler<ProcessOutcome> handler) {
  launch<ProcessOutcome>(store_, std::move(handler),
                         [this, id = std::move(id), ev = std::move(event)]() mutable {
                           return Impl::process(*this, std::move(id), std::move(ev));
                         });
}

void AsyncRunner::start_relay(Handler<std::int64_t> handler) {
  launch<std::int64_t>(store_, std::move(handler), [this] { return Impl::relay(*this); });
}

void AsyncRunner::start_sweep(Handler<std::int64_t> handler) {
  launch<std::int64_t>(store_, std::move(handler), [this] { return Impl::sweep(*this); });
}

}  // namespace harel::runtime
