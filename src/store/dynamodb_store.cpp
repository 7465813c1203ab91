#include "harel/store/dynamodb_store.h"

#include <thread>
#include <variant>

#include <boost/asio/io_context.hpp>

#include "harel/dynamodb/errors.h"
#include "harel/dynamodb/http_client.h"
#include "harel/errors.h"
#include "store/dynamodb/operations.h"

namespace harel {

using store::dynamodb::CallSequence;
using store::dynamodb::Delay;
using store::dynamodb::DynamoCall;
using store::dynamodb::Operations;
using store::dynamodb::Step;
using store::dynamodb::TableNames;

namespace {

// Drives a sequence with blocking calls on the calling thread.
template <class T>
T run_blocking(dynamodb::DynamoClient& client, CallSequence<T> seq) {
  for (Step step = seq.resume(); !std::holds_alternative<std::monostate>(step); step = seq.resume()) {
    if (DynamoCall* const* call = std::get_if<DynamoCall*>(&step)) {
      try {
        seq.answer(client.call((*call)->operation, (*call)->request));
      } catch (...) {
        seq.fail(std::current_exception());
      }
    } else {
      std::this_thread::sleep_for(std::get<Delay>(step).duration);
    }
  }
  return seq.result();
}

}  // namespace

struct DynamoDBStore::Impl {
  Impl(std::shared_ptr<dynamodb::DynamoClient> c, const DynamoDBStoreOptions& o)
      : client(std::move(c)), ops(TableNames(o.prefix), o.consistent_reads) {
    if (!client) throw InvalidArgument("DynamoDBStore needs a client");
  }

  dynamodb::DynamoClient& live_client() {
    if (!client) throw BackendError("dynamodb", "StoreClosed", "store '" + ops.tables().prefix + "' is closed");
    return *client;
  }

  template <class T>
  T run(CallSequence<T> seq) {
    return run_blocking(live_client(), std::move(seq));
  }

  std::shared_ptr<dynamodb::DynamoClient> client;
  Operations ops;
  // Set by create(): the HTTP client's executor (its blocking path does not
  // run it) — owned here so that the client is the store's to release.
  std::shared_ptr<boost::asio::io_context> owned_context;
};

DynamoDBStore::DynamoDBStore(std::shared_ptr<dynamodb::DynamoClient> client, DynamoDBStoreOptions options)
    : impl_(std::make_unique<Impl>(std::move(client), options)) {
  set_trace_max(options.trace_max);
}

DynamoDBStore::~DynamoDBStore() = default;

std::unique_ptr<DynamoDBStore> DynamoDBStore::create(const DynamoDBConnect& connect) {
  const auto settings = dynamodb::resolve_settings({connect.endpoint_url, connect.region, std::nullopt, std::nullopt});
  auto context = std::make_shared<boost::asio::io_context>();
  auto client = std::make_shared<dynamodb::HttpDynamoClient>(context->get_executor(), settings, connect.http);
  auto store = std::make_unique<DynamoDBStore>(std::move(client), connect.store);
  store->impl_->owned_context = std::move(context);
  // A local server may still be starting: retry until it answers.
  for (int attempt = 1;; ++attempt) {
    try {
      store->ensure_tables();
      return store;
    } catch (const dynamodb::TransportError& e) {
      if (attempt >= connect.connect_retries || !e.retryable()) throw;
      std::this_thread::sleep_for(connect.retry_delay);
    }
  }
}

void DynamoDBStore::ensure_tables() { impl_->run(impl_->ops.ensure_tables()); }

const std::string& DynamoDBStore::prefix() const noexcept { return impl_->ops.tables().prefix; }

std::optional<Execution> DynamoDBStore::load(std::string_view execution_id) {
  return impl_->run(impl_->ops.load(execution_id));
}

LoadForEvent DynamoDBStore::load_for_event(std::string_view execution_id, std::string_view event_id) {
  return impl_->run(impl_->ops.load_for_event(execution_id, event_id));
}

ExecutionPage DynamoDBStore::list_executions(const ListQuery& query) {
  return impl_->run(impl_->ops.list_executions(query));
}

CommitReceipt DynamoDBStore::commit(Execution& exe, const Effects& effects) {
  const CommitReceipt receipt = impl_->run(impl_->ops.commit(exe, effects, trace_max()));
  exe.version += 1;
  return receipt;
}

bool DynamoDBStore::is_processed(std::string_view execution_id, std::string_view event_id) {
  return impl_->run(impl_->ops.is_processed(execution_id, event_id));
}

std::vector<OutboxEntry> DynamoDBStore::pending_outbox() { return impl_->run(impl_->ops.pending_outbox()); }

void DynamoDBStore::ack_outbox(std::int64_t seq) { impl_->run(impl_->ops.ack_outbox(seq)); }

std::vector<SpawnEntry> DynamoDBStore::pending_spawns() { return impl_->run(impl_->ops.pending_spawns()); }

void DynamoDBStore::ack_spawn(std::int64_t seq) { impl_->run(impl_->ops.ack_spawn(seq)); }

std::vector<DueTimer> DynamoDBStore::due_timers(EpochSeconds now) { return impl_->run(impl_->ops.due_timers(now)); }

bool DynamoDBStore::delete_timer(std::string_view execution_id, std::string_view path, EpochSeconds fire_at) {
  return impl_->run(impl_->ops.delete_timer(execution_id, path, fire_at));
}

std::vector<TraceStep> DynamoDBStore::read_trace(std::string_view execution_id) {
  return impl_->run(impl_->ops.read_trace(execution_id));
}

void DynamoDBStore::append_trace(std::string_view execution_id, const TraceStep& entry) {
  impl_->run(impl_->ops.append_trace(execution_id, entry, trace_max()));
}

void DynamoDBStore::close() {
  if (impl_->owned_context) {  // only a client this store created is released
    impl_->client.reset();
    impl_->owned_context.reset();
  }
}

}  // namespace harel
