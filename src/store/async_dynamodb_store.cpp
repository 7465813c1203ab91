#include "harel/store/async_dynamodb_store.h"

#include <atomic>
#include <variant>

#include <boost/asio/append.hpp>
#include <boost/asio/associated_cancellation_slot.hpp>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/error.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/system/system_error.hpp>

#include "harel/dynamodb/errors.h"
#include "harel/dynamodb/http_client.h"
#include "harel/errors.h"
#include "store/dynamodb/operations.h"

namespace harel {

using store::dynamodb::CallSequence;
using store::dynamodb::Delay;
using store::dynamodb::Done;
using store::dynamodb::DynamoCall;
using store::dynamodb::Operations;
using store::dynamodb::Step;
using store::dynamodb::TableNames;

namespace asio = boost::asio;

const Effects AsyncDynamoDBStore::kNoEffects{};

struct AsyncDynamoDBStore::Impl {
  Impl(std::shared_ptr<dynamodb::DynamoClient> c, const DynamoDBStoreOptions& o)
      : client(std::move(c)), ops(TableNames(o.prefix), o.consistent_reads), trace_max(o.trace_max) {
    if (!client) throw InvalidArgument("AsyncDynamoDBStore needs a client");
    if (o.trace_max < 0) throw InvalidArgument("trace_max must not be negative");
  }

  // The client, or BackendError once close() released it.
  const std::shared_ptr<dynamodb::DynamoClient>& live_client() const {
    if (!client) throw BackendError("dynamodb", "StoreClosed", "store '" + ops.tables().prefix + "' is closed");
    return client;
  }

  std::shared_ptr<dynamodb::DynamoClient> client;
  Operations ops;
  std::atomic<std::int64_t> trace_max;
  bool owns_client = false;
};

namespace {

// Drives one CallSequence with async_call, one step per completion, then
// hands its outcome to `deliver` (which completes the caller's handler).
// `Keep` holds whatever the sequence references (ids, queries) until it has
// finished.
template <class T, class Keep, class Handler, class Deliver>
class AsyncRun : public std::enable_shared_from_this<AsyncRun<T, Keep, Handler, Deliver>> {
 public:
  AsyncRun(std::shared_ptr<dynamodb::DynamoClient> client, Keep keep, Handler handler, Deliver deliver)
      : client_(std::move(client)),
        keep_(std::move(keep)),
        handler_(std::move(handler)),
        deliver_(std::move(deliver)) {}

  // `make` builds the sequence from the kept arguments (they now live here).
  template <class Make>
  void start(Make&& make) {
    seq_.emplace(make(keep_));
    if (auto slot = asio::get_associated_cancellation_slot(handler_); slot.is_connected()) {
      slot.assign([self = this->shared_from_this()](asio::cancellation_type type) {
        if (type != asio::cancellation_type::none) self->cancelled_ = true;
      });
    }
    // The first step runs from the executor, never inside the initiating call.
    asio::post(client_->executor(), [self = this->shared_from_this()] { self->step(); });
  }

 private:
  void step() {
    const Step next = seq_->resume();
    if (std::holds_alternative<std::monostate>(next)) return finish(nullptr);
    if (cancelled_) return finish(std::make_exception_ptr(boost::system::system_error(asio::error::operation_aborted)));
    if (DynamoCall* const* call = std::get_if<DynamoCall*>(&next)) {
      client_->async_call((*call)->operation, (*call)->request,
                          [self = this->shared_from_this()](std::exception_ptr e, boost::json::value response) {
                            if (e)
                              self->seq_->fail(std::move(e));
                            else
                              self->seq_->answer(std::move(response));
                            self->step();
                          });
      return;
    }
    if (!timer_) timer_.emplace(client_->executor());
    timer_->expires_after(std::get<Delay>(next).duration);
    timer_->async_wait([self = this->shared_from_this()](boost::system::error_code) { self->step(); });
  }

  void finish(std::exception_ptr error) {
    T value{};
    if (!error) {
      try {
        value = seq_->result();
      } catch (...) {
        error = std::current_exception();
      }
    }
    asio::get_associated_cancellation_slot(handler_).clear();
    auto ex = asio::get_associated_executor(handler_, client_->executor());
    asio::dispatch(ex, [h = std::move(handler_), d = std::move(deliver_), error, v = std::move(value)]() mutable {
      d(std::move(h), error, std::move(v));
    });
  }

  std::shared_ptr<dynamodb::DynamoClient> client_;
  Keep keep_;
  Handler handler_;
  Deliver deliver_;
  // Made when a sequence first backs off: most runs never wait, and making
  // and destroying a timer (a lookup of its service, the scheduler's locks)
  // cost ~5 µs per operation (harel_microbench, BM_Load_Async).
  std::optional<asio::steady_timer> timer_;
  std::optional<CallSequence<T>> seq_;
  bool cancelled_ = false;  // set by the slot's emitter, read on the executor
};

template <class T, class Keep, class Handler, class Make, class Deliver>
void run_async(const std::shared_ptr<dynamodb::DynamoClient>& client, Keep keep, Handler handler, Make&& make,
               Deliver deliver) {
  auto run = std::make_shared<AsyncRun<T, Keep, Handler, Deliver>>(client, std::move(keep), std::move(handler),
                                                                   std::move(deliver));
  run->start(std::forward<Make>(make));
}

// Completes a void(exception_ptr, T) handler with the sequence's value.
struct DeliverValue {
  template <class Handler, class T>
  void operator()(Handler h, std::exception_ptr e, T v) const {
    std::move(h)(e, std::move(v));
  }
};

// Completes a void(exception_ptr) handler, dropping the sequence's value.
struct DeliverVoid {
  template <class Handler, class T>
  void operator()(Handler h, std::exception_ptr e, T) const {
    std::move(h)(e);
  }
};

}  // namespace

AsyncDynamoDBStore::AsyncDynamoDBStore(std::shared_ptr<dynamodb::DynamoClient> client, DynamoDBStoreOptions options)
    : impl_(std::make_shared<Impl>(std::move(client), options)) {}

AsyncDynamoDBStore::~AsyncDynamoDBStore() = default;

asio::any_io_executor AsyncDynamoDBStore::get_executor() const { return impl_->live_client()->executor(); }
const std::string& AsyncDynamoDBStore::prefix() const noexcept { return impl_->ops.tables().prefix; }
std::int64_t AsyncDynamoDBStore::trace_max() const noexcept { return impl_->trace_max.load(); }

void AsyncDynamoDBStore::set_trace_max(std::int64_t n) {
  if (n < 0) throw InvalidArgument("trace_max must not be negative, got " + std::to_string(n));
  impl_->trace_max.store(n);
}

void AsyncDynamoDBStore::close() {
  if (impl_->owns_client) impl_->client.reset();
}

void AsyncDynamoDBStore::start_create(asio::any_io_executor executor, DynamoDBConnect connect,
                                      Handler<std::unique_ptr<AsyncDynamoDBStore>> handler) {
  struct Attempt : std::enable_shared_from_this<Attempt> {
    std::unique_ptr<AsyncDynamoDBStore> store;
    DynamoDBConnect connect;
    Handler<std::unique_ptr<AsyncDynamoDBStore>> handler;
    asio::steady_timer timer;
    int attempt = 0;

    Attempt(asio::any_io_executor ex, DynamoDBConnect c, Handler<std::unique_ptr<AsyncDynamoDBStore>> h)
        : connect(std::move(c)), handler(std::move(h)), timer(std::move(ex)) {}

    void complete(std::exception_ptr e) {
      auto ex = asio::get_associated_executor(handler, timer.get_executor());
      asio::dispatch(ex, asio::append(std::move(handler), e, e ? nullptr : std::move(store)));
    }
    void try_once() {
      ++attempt;
      store->async_ensure_tables([self = this->shared_from_this()](std::exception_ptr e) {
        if (!e) return self->complete(nullptr);
        try {
          std::rethrow_exception(e);
        } catch (const dynamodb::TransportError& t) {
          // A local server may still be starting: retry until it answers.
          if (t.retryable() && self->attempt < self->connect.connect_retries) {
            self->timer.expires_after(self->connect.retry_delay);
            self->timer.async_wait([self](boost::system::error_code) { self->try_once(); });
            return;
          }
        } catch (...) {
        }
        self->complete(e);
      });
    }
  };
  auto attempt = std::make_shared<Attempt>(executor, std::move(connect), std::move(handler));
  try {
    const auto& c = attempt->connect;
    auto client = std::make_shared<dynamodb::HttpDynamoClient>(
        executor, dynamodb::resolve_settings({c.endpoint_url, c.region, std::nullopt, std::nullopt}), c.http);
    attempt->store = std::make_unique<AsyncDynamoDBStore>(std::move(client), c.store);
    attempt->store->impl_->owns_client = true;
  } catch (...) {
    return asio::post(executor, [attempt, e = std::current_exception()] { attempt->complete(e); });
  }
  attempt->try_once();
}

void AsyncDynamoDBStore::start_ensure_tables(VoidHandler handler) {
  run_async<Done>(
      impl_->live_client(), impl_, std::move(handler),
      [](const std::shared_ptr<Impl>& impl) { return impl->ops.ensure_tables(); }, DeliverVoid{});
}

void AsyncDynamoDBStore::start_load(std::string id, Handler<std::optional<Execution>> handler) {
  run_async<std::optional<Execution>>(impl_->live_client(), std::make_pair(impl_, std::move(id)), std::move(handler),
                                      [](const auto& keep) { return keep.first->ops.load(keep.second); }, DeliverValue{});
}

void AsyncDynamoDBStore::start_load_for_event(std::string id, std::string event_id, Handler<LoadForEvent> handler) {
  run_async<LoadForEvent>(impl_->live_client(), std::make_tuple(impl_, std::move(id), std::move(event_id)),
                          std::move(handler), [](const auto& keep) {
                            return std::get<0>(keep)->ops.load_for_event(std::get<1>(keep), std::get<2>(keep));
                          }, DeliverValue{});
}

void AsyncDynamoDBStore::start_list_executions(ListQuery query, Handler<ExecutionPage> handler) {
  run_async<ExecutionPage>(impl_->live_client(), std::make_pair(impl_, std::move(query)), std::move(handler),
                           [](const auto& keep) { return keep.first->ops.list_executions(keep.second); }, DeliverValue{});
}

void AsyncDynamoDBStore::start_commit(Execution& exe, const Effects& effects, Handler<CommitReceipt> handler) {
  // `exe` and `effects` are the caller's until completion; the committed
  // version is applied to `exe` before the caller hears of the success.
  const std::int64_t trace_max = impl_->trace_max.load();
  run_async<CommitReceipt>(
      impl_->live_client(), impl_, std::move(handler),
      [&exe, &effects, trace_max](const std::shared_ptr<Impl>& impl) {
        return impl->ops.commit(exe, effects, trace_max);
      },
      [&exe](Handler<CommitReceipt> h, std::exception_ptr e, CommitReceipt receipt) {
        if (!e) exe.version += 1;
        std::move(h)(e, receipt);
      });
}

void AsyncDynamoDBStore::start_is_processed(std::string id, std::string event_id, Handler<bool> handler) {
  run_async<bool>(impl_->live_client(), std::make_tuple(impl_, std::move(id), std::move(event_id)), std::move(handler),
                  [](const auto& keep) {
                    return std::get<0>(keep)->ops.is_processed(std::get<1>(keep), std::get<2>(keep));
                  }, DeliverValue{});
}

void AsyncDynamoDBStore::start_pending_outbox(Handler<std::vector<OutboxEntry>> handler) {
  run_async<std::vector<OutboxEntry>>(impl_->live_client(), impl_, std::move(handler),
                                      [](const std::shared_ptr<Impl>& impl) { return impl->ops.pending_outbox(); }, DeliverValue{});
}

void AsyncDynamoDBStore::start_ack_outbox(std::int64_t seq, VoidHandler handler) {
  run_async<Done>(
      impl_->live_client(), impl_, std::move(handler),
      [seq](const std::shared_ptr<Impl>& impl) { return impl->ops.ack_outbox(seq); }, DeliverVoid{});
}

void AsyncDynamoDBStore::start_pending_spawns(Handler<std::vector<SpawnEntry>> handler) {
  run_async<std::vector<SpawnEntry>>(impl_->live_client(), impl_, std::move(handler),
                                     [](const std::shared_ptr<Impl>& impl) { return impl->ops.pending_spawns(); }, DeliverValue{});
}

void AsyncDynamoDBStore::start_ack_spawn(std::int64_t seq, VoidHandler handler) {
  run_async<Done>(
      impl_->live_client(), impl_, std::move(handler),
      [seq](const std::shared_ptr<Impl>& impl) { return impl->ops.ack_spawn(seq); }, DeliverVoid{});
}

void AsyncDynamoDBStore::start_due_timers(EpochSeconds now, Handler<std::vector<DueTimer>> handler) {
  run_async<std::vector<DueTimer>>(impl_->live_client(), impl_, std::move(handler),
                                   [now](const std::shared_ptr<Impl>& impl) { return impl->ops.due_timers(now); }, DeliverValue{});
}

void AsyncDynamoDBStore::start_delete_timer(std::string id, std::string path, EpochSeconds fire_at,
                                            Handler<bool> handler) {
  run_async<bool>(impl_->live_client(), std::make_tuple(impl_, std::move(id), std::move(path)), std::move(handler),
                  [fire_at](const auto& keep) {
                    return std::get<0>(keep)->ops.delete_timer(std::get<1>(keep), std::get<2>(keep), fire_at);
                  }, DeliverValue{});
}

void AsyncDynamoDBStore::start_read_trace(std::string id, Handler<std::vector<TraceStep>> handler) {
  run_async<std::vector<TraceStep>>(impl_->live_client(), std::make_pair(impl_, std::move(id)), std::move(handler),
                                    [](const auto& keep) { return keep.first->ops.read_trace(keep.second); }, DeliverValue{});
}

void AsyncDynamoDBStore::start_append_trace(std::string id, TraceStep entry, VoidHandler handler) {
  const std::int64_t trace_max = impl_->trace_max.load();
  run_async<Done>(
      impl_->live_client(), std::make_tuple(impl_, std::move(id), std::move(entry)), std::move(handler),
      [trace_max](const auto& keep) {
        return std::get<0>(keep)->ops.append_trace(std::get<1>(keep), std::get<2>(keep), trace_max);
      },
      DeliverVoid{});
}

}  // namespace harel
