#include "harel/store/async_execution_store.h"

#include "harel/store/async_dynamodb_store.h"
#include "util/offload.h"

namespace harel {
namespace {

// The DynamoDB store is asynchronous already: forward each operation.
class NativeDynamoDB final : public AsyncExecutionStore {
 public:
  explicit NativeDynamoDB(AsyncDynamoDBStore& store) : store_(store) {}
  boost::asio::any_io_executor get_executor() const override { return store_.get_executor(); }

 protected:
  void start_load(std::string id, Handler<std::optional<Execution>> h) override { store_.async_load(id, std::move(h)); }
  void start_load_for_event(std::string id, std::string event_id, Handler<LoadForEvent> h) override {
    store_.async_load_for_event(id, event_id, std::move(h));
  }
  void start_commit(Execution& exe, const Effects& effects, Handler<CommitReceipt> h) override {
    store_.async_commit(exe, effects, std::move(h));
  }
  void start_pending_outbox(Handler<std::vector<OutboxEntry>> h) override { store_.async_pending_outbox(std::move(h)); }
  void start_ack_outbox(std::int64_t seq, VoidHandler h) override { store_.async_ack_outbox(seq, std::move(h)); }
  void start_pending_spawns(Handler<std::vector<SpawnEntry>> h) override { store_.async_pending_spawns(std::move(h)); }
  void start_ack_spawn(std::int64_t seq, VoidHandler h) override { store_.async_ack_spawn(seq, std::move(h)); }
  void start_due_timers(EpochSeconds now, Handler<std::vector<DueTimer>> h) override {
    store_.async_due_timers(now, std::move(h));
  }
  void start_delete_timer(std::string id, std::string path, EpochSeconds fire_at, Handler<bool> h) override {
    store_.async_delete_timer(id, path, fire_at, std::move(h));
  }

 private:
  AsyncDynamoDBStore& store_;
};

// A blocking store's calls, each run by the Offloader.
class Offloaded final : public AsyncExecutionStore {
 public:
  Offloaded(ExecutionStore& store, boost::asio::any_io_executor executor, int threads)
      : store_(store), offload_(std::move(executor), threads) {}
  boost::asio::any_io_executor get_executor() const override { return offload_.executor(); }

 protected:
  void start_load(std::string id, Handler<std::optional<Execution>> h) override {
    offload_.run(std::move(h), [this, id = std::move(id)] { return store_.load(id); });
  }
  void start_load_for_event(std::string id, std::string event_id, Handler<LoadForEvent> h) override {
    offload_.run(std::move(h), [this, id = std::move(id), ev = std::move(event_id)] { return store_.load_for_event(id, ev); });
  }
  void start_commit(Execution& exe, const Effects& effects, Handler<CommitReceipt> h) override {
    offload_.run(std::move(h), [this, &exe, &effects] { return store_.commit(exe, effects); });
  }
  void start_pending_outbox(Handler<std::vector<OutboxEntry>> h) override {
    offload_.run(std::move(h), [this] { return store_.pending_outbox(); });
  }
  void start_ack_outbox(std::int64_t seq, VoidHandler h) override {
    offload_.run(std::move(h), [this, seq] { store_.ack_outbox(seq); });
  }
  void start_pending_spawns(Handler<std::vector<SpawnEntry>> h) override {
    offload_.run(std::move(h), [this] { return store_.pending_spawns(); });
  }
  void start_ack_spawn(std::int64_t seq, VoidHandler h) override {
    offload_.run(std::move(h), [this, seq] { store_.ack_spawn(seq); });
  }
  void start_due_timers(EpochSeconds now, Handler<std::vector<DueTimer>> h) override {
    offload_.run(std::move(h), [this, now] { return store_.due_timers(now); });
  }
  void start_delete_timer(std::string id, std::string path, EpochSeconds fire_at, Handler<bool> h) override {
    offload_.run(std::move(h), [this, id = std::move(id), path = std::move(path), fire_at] {
      return store_.delete_timer(id, path, fire_at);
    });
  }

 private:
  ExecutionStore& store_;
  util::Offloader offload_;
};

}  // namespace

std::unique_ptr<AsyncExecutionStore> make_async_store(AsyncDynamoDBStore& store) {
  return std::make_unique<NativeDynamoDB>(store);
}

std::unique_ptr<AsyncExecutionStore> make_async_store(ExecutionStore& store, boost::asio::any_io_executor executor,
                                                      int threads) {
  return std::make_unique<Offloaded>(store, std::move(executor), threads);
}

}  // namespace harel
