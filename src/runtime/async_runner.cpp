#include "harel/runtime/async_runner.h"

#include <set>

#include <boost/asio/use_awaitable.hpp>

#include "harel/errors.h"
#include "runtime/failures.h"
#include "runtime/steps.h"

namespace harel::runtime {

namespace asio = boost::asio;
using asio::awaitable;
using asio::use_awaitable;

namespace {

// Rows pending for at least `grace` since this runner first saw them; the
// map forgets rows that are gone.
template <class Row>
std::vector<Row> aged(std::vector<Row> rows, std::map<std::int64_t, EpochSeconds>& seen, std::mutex& mu,
                      EpochSeconds now, std::chrono::milliseconds grace) {
  if (grace.count() == 0) return rows;
  std::lock_guard lock(mu);
  std::map<std::int64_t, EpochSeconds> still;
  std::vector<Row> due;
  for (Row& row : rows) {
    const auto it = seen.find(row.seq);
    const EpochSeconds first = it == seen.end() ? now : it->second;
    still.emplace(row.seq, first);
    if (now - first >= static_cast<double>(grace.count()) / 1000.0) due.push_back(std::move(row));
  }
  seen.swap(still);
  return due;
}

}  // namespace

struct AsyncRunner::Core {
  AsyncRunner& r;

  std::string outbox_dedupe_id(std::int64_t seq) const {
    return "outbox:" + r.options_.dedupe_scope + ":" + std::to_string(seq);
  }

  // Commits a prepared step: its receipt, or nullopt on StoreConflict (the
  // conflict itself in `conflict`).
  awaitable<std::optional<CommitReceipt>> try_commit(Step& step, std::exception_ptr* conflict = nullptr) {
    std::optional<CommitReceipt> receipt;
    const std::exception_ptr error =
        co_await capture([&]() -> awaitable<void> { receipt = co_await r.store_.async_commit(step.execution, step.effects, use_awaitable); });
    if (!error) co_return receipt;
    if (!is<StoreConflict>(error)) std::rethrow_exception(error);
    if (conflict) *conflict = error;
    co_return std::nullopt;
  }

  awaitable<ProcessOutcome> process(const std::string& id, const Event& event) {
    for (int attempt = 0;; ++attempt) {
      const LoadForEvent loaded = co_await r.store_.async_load_for_event(id, event.id, use_awaitable);
      if (!loaded.execution) co_return ProcessOutcome::NotFound;
      if (loaded.already_processed) {
        ++r.stats_.duplicates;
        co_return ProcessOutcome::Duplicate;
      }
      Step step = steps::for_event(*r.definitions_, *loaded.execution, event, r.now(), r.options_.trace);
      std::exception_ptr conflict;
      if (const auto receipt = co_await try_commit(step, &conflict)) {
        ++r.stats_.events;
        co_await deliver(step.execution, step.effects, *receipt);
        co_return step.handled ? ProcessOutcome::Handled : ProcessOutcome::Unhandled;
      }
      ++r.stats_.conflicts_retried;
      if (attempt == r.options_.conflict_retries) std::rethrow_exception(conflict);
    }
  }

  // Delivers a committed step's spawns and emits and acks their rows. The
  // children come first, so an emit to a child created by the same step finds
  // it. A failure leaves the rows pending for relay_once: the commit stands.
  awaitable<void> deliver(const Execution& exe, const Effects& effects, const CommitReceipt& receipt) {
    for (std::size_t i = 0; i < effects.spawns.size(); ++i) {
      const SpawnRequest& s = effects.spawns[i];
      const SpawnEntry spawn{receipt.spawn_seq(i), exe.id, s.child_id, s.root_path, s.context};
      if (co_await capture([&]() -> awaitable<void> { co_await handle_spawn(spawn, &exe); })) co_return;
    }
    if (!effects.emits.empty()) {
      std::vector<OutboxEntry> rows;
      for (std::size_t i = 0; i < effects.emits.size(); ++i)
        rows.push_back({receipt.outbox_seq(i), effects.emits[i].target_id, effects.emits[i].event});
      co_await capture([&]() -> awaitable<void> { co_await deliver_outbox(std::move(rows)); });
    }
  }

  // Publishes (or applies) outbox rows, then acks them — or, on a transport
  // that is not durable, leaves each targeted row for its consumer to ack.
  // Raises what failed; rows not yet acked stay pending.
  awaitable<void> deliver_outbox(std::vector<OutboxEntry> rows) {
    if (r.transport_) {
      const bool durable = r.transport_->durable();
      std::vector<Publication> publications;
      for (const OutboxEntry& row : rows) {
        if (!row.target_id) continue;
        Publication p{*row.target_id, row.event, outbox_dedupe_id(row.seq), {}};
        if (!durable) p.settle.outbox_seq = row.seq;
        publications.push_back(std::move(p));
      }
      if (!publications.empty()) co_await r.transport_->async_publish(std::move(publications), use_awaitable);
      for (const OutboxEntry& row : rows)
        if (durable || !row.target_id) co_await ack_outbox(row, true);
      co_return;
    }
    for (const OutboxEntry& row : rows) {
      // Untargeted events have no receiver in this runtime: acknowledged as undeliverable.
      const ProcessOutcome outcome =
          row.target_id ? co_await process(*row.target_id, row.event) : ProcessOutcome::NotFound;
      co_await ack_outbox(row, outcome != ProcessOutcome::NotFound);
    }
  }

  awaitable<void> ack_outbox(const OutboxEntry& row, bool delivered) {
    co_await r.store_.async_ack_outbox(row.seq, use_awaitable);
    ++r.stats_.outbox_delivered;
    if (!delivered || !row.target_id) ++r.stats_.undeliverable;
  }

  // Creates the child a spawn intent names (unless it exists), delivers its
  // start's effects, acks the intent. `parent` when the caller has it at hand.
  awaitable<void> handle_spawn(const SpawnEntry& spawn, const Execution* parent) {
    std::optional<Execution> loaded;
    if (!parent) {
      loaded = co_await r.store_.async_load(spawn.parent_id, use_awaitable);
      if (!loaded) throw CorruptRecord("spawns", std::to_string(spawn.seq), "parent '" + spawn.parent_id + "' not found");
      parent = &*loaded;
    }
    Step step = steps::for_child(*r.definitions_, spawn, *parent, r.now(), r.options_.trace);
    // An insert: a conflict means an earlier (interrupted) delivery created it.
    if (const auto receipt = co_await try_commit(step)) {
      ++r.stats_.spawns_created;
      co_await deliver(step.execution, step.effects, *receipt);
    }
    co_await r.store_.async_ack_spawn(spawn.seq, use_awaitable);
  }

  awaitable<std::int64_t> relay(std::chrono::milliseconds grace) {
    std::int64_t handled = 0;
    auto outbox = aged(co_await r.store_.async_pending_outbox(use_awaitable), r.outbox_seen_, r.seen_mu_, r.now(), grace);
    for (OutboxEntry& row : outbox) {
      const std::int64_t seq = row.seq;
      const std::exception_ptr error = co_await capture([&]() -> awaitable<void> {
        std::vector<OutboxEntry> one;
        one.push_back(std::move(row));
        co_await deliver_outbox(std::move(one));
      });
      count(error, handled, "outbox", seq);
    }
    auto spawns = aged(co_await r.store_.async_pending_spawns(use_awaitable), r.spawns_seen_, r.seen_mu_, r.now(), grace);
    for (const SpawnEntry& spawn : spawns) {
      const std::exception_ptr error =
          co_await capture([&]() -> awaitable<void> { co_await handle_spawn(spawn, nullptr); });
      count(error, handled, "spawns", spawn.seq);
    }
    co_return handled;
  }

  // What the consumer of a non-durable transport's message settles after
  // applying its event (see Settlement).
  awaitable<void> settle(const Settlement& s) {
    if (s.outbox_seq) {
      co_await r.store_.async_ack_outbox(*s.outbox_seq, use_awaitable);
      ++r.stats_.outbox_delivered;
    }
    if (s.timer) co_await r.store_.async_delete_timer(s.timer->execution_id, s.timer->path, s.timer->fire_at, use_awaitable);
  }

  void count(const std::exception_ptr& error, std::int64_t& handled, std::string_view table, std::int64_t seq) {
    if (!error) {
      ++handled;
      ++r.stats_.recovered;
      return;
    }
    ++r.stats_.kept;
    if (r.options_.on_kept)
      r.options_.on_kept("kept " + std::string(table) + " row " + std::to_string(seq) + ": " + describe(error));
  }

  awaitable<std::int64_t> sweep() {
    std::int64_t fired = 0;
    const std::vector<DueTimer> due = co_await r.store_.async_due_timers(r.now(), use_awaitable);
    std::vector<Event> timeouts;
    for (const DueTimer& timer : due) timeouts.push_back(steps::timeout_event(timer));
    std::set<std::string> awaiting;  // published earlier, not yet settled by their consumer
    {
      std::lock_guard lock(r.seen_mu_);
      for (const Event& timeout : timeouts)
        if (r.timeouts_published_.count(timeout.id)) awaiting.insert(timeout.id);
      r.timeouts_published_ = awaiting;
    }
    for (std::size_t i = 0; i < due.size(); ++i) {
      const DueTimer& timer = due[i];
      const Event& timeout = timeouts[i];
      bool fired_now = false;
      if (!r.transport_) {
        const ProcessOutcome outcome = co_await process(timer.execution_id, timeout);
        // Guarded on fire_at: a timer re-armed meanwhile (a new fire_at) survives.
        co_await r.store_.async_delete_timer(timer.execution_id, timer.path, timer.fire_at, use_awaitable);
        fired_now = outcome == ProcessOutcome::Handled || outcome == ProcessOutcome::Unhandled;
      } else if (!awaiting.count(timeout.id)) {
        // The event id is the dedupe id: a timer published twice within the
        // window (by a sweep that died before delete_timer, or by two lease
        // holders for a moment) is enqueued once.
        std::vector<Publication> publication;
        publication.push_back({timer.execution_id, timeout, timeout.id, {}});
        const bool durable = r.transport_->durable();
        if (!durable) publication.back().settle.timer = timer;  // its consumer deletes it
        co_await r.transport_->async_publish(std::move(publication), use_awaitable);
        if (durable) {
          // Counted by the sweep whose guarded delete took the timer.
          fired_now = co_await r.store_.async_delete_timer(timer.execution_id, timer.path, timer.fire_at, use_awaitable);
        } else {
          std::lock_guard lock(r.seen_mu_);
          r.timeouts_published_.insert(timeout.id);
          fired_now = true;
        }
      }
      if (fired_now) {
        ++r.stats_.timers_fired;
        ++fired;
      }
    }
    co_return fired;
  }
};

AsyncRunner::AsyncRunner(AsyncExecutionStore& store, std::shared_ptr<const Definitions> definitions,
                         RunnerOptions options, AsyncTransport* transport)
    : store_(store), definitions_(std::move(definitions)), options_(std::move(options)), transport_(transport) {
  if (!options_.clock) options_.clock = steps::system_now;
  if (options_.conflict_retries < 0) throw InvalidArgument("conflict_retries must not be negative");
}

awaitable<Execution> AsyncRunner::create(std::string definition_id, boost::json::object context,
                                         std::optional<std::string> id) {
  Core core{*this};
  Step step = steps::for_new(*definitions_, definition_id, std::move(context), std::move(id), now(), options_.trace);
  const auto receipt = co_await core.try_commit(step);
  if (!receipt) throw InvalidArgument("execution '" + step.execution.id + "' already exists");
  co_await core.deliver(step.execution, step.effects, *receipt);
  co_return step.execution;
}

awaitable<ProcessOutcome> AsyncRunner::process(std::string id, Event event) {
  co_return co_await Core{*this}.process(id, event);
}

awaitable<std::int64_t> AsyncRunner::relay_once(std::chrono::milliseconds grace) {
  co_return co_await Core{*this}.relay(grace);
}

awaitable<std::int64_t> AsyncRunner::sweep_once() { co_return co_await Core{*this}.sweep(); }

awaitable<void> AsyncRunner::settle(Settlement settlement) { co_await Core{*this}.settle(settlement); }

}  // namespace harel::runtime
