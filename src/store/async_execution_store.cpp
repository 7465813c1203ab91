#include "harel/store/async_execution_store.h"

#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

#include "harel/store/async_dynamodb_store.h"
#include "harel/store/sqlite_store.h"
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

// SqliteStore with group commit: one thread takes every call queued while it
// was busy and runs the consecutive writes among them as one write_group.
class GroupCommitSqlite final : public AsyncExecutionStore {
 public:
  GroupCommitSqlite(SqliteStore& store, boost::asio::any_io_executor executor)
      : store_(store), executor_(std::move(executor)), thread_([this] { serve(); }) {}
  ~GroupCommitSqlite() override {
    {
      std::lock_guard lock(mu_);
      stopping_ = true;
    }
    wake_.notify_one();
    thread_.join();
  }
  boost::asio::any_io_executor get_executor() const override { return executor_; }

 protected:
  void start_load(std::string id, Handler<std::optional<Execution>> h) override {
    read(std::move(h), [this, id = std::move(id)] { return store_.load(id); });
  }
  void start_load_for_event(std::string id, std::string event_id, Handler<LoadForEvent> h) override {
    read(std::move(h), [this, id = std::move(id), ev = std::move(event_id)] { return store_.load_for_event(id, ev); });
  }
  void start_commit(Execution& exe, const Effects& effects, Handler<CommitReceipt> h) override {
    // A group whose transaction failed leaves exe.version bumped: put it back.
    write(std::move(h), [this, &exe, &effects] { return store_.commit(exe, effects); },
          [&exe, version = exe.version] { exe.version = version; });
  }
  void start_pending_outbox(Handler<std::vector<OutboxEntry>> h) override {
    read(std::move(h), [this] { return store_.pending_outbox(); });
  }
  void start_ack_outbox(std::int64_t seq, VoidHandler h) override {
    write(std::move(h), [this, seq] { store_.ack_outbox(seq); });
  }
  void start_pending_spawns(Handler<std::vector<SpawnEntry>> h) override {
    read(std::move(h), [this] { return store_.pending_spawns(); });
  }
  void start_ack_spawn(std::int64_t seq, VoidHandler h) override {
    write(std::move(h), [this, seq] { store_.ack_spawn(seq); });
  }
  void start_due_timers(EpochSeconds now, Handler<std::vector<DueTimer>> h) override {
    read(std::move(h), [this, now] { return store_.due_timers(now); });
  }
  void start_delete_timer(std::string id, std::string path, EpochSeconds fire_at, Handler<bool> h) override {
    write(std::move(h), [this, id = std::move(id), path = std::move(path), fire_at] {
      return store_.delete_timer(id, path, fire_at);
    });
  }

 private:
  // One queued call: `run` makes it (raising its error), `finish` completes
  // its handler with the outcome.
  struct Job {
    virtual ~Job() = default;
    virtual void run() = 0;
    virtual void finish(std::exception_ptr error) = 0;
    bool is_write = false;
  };

  template <class Handler, class Call, class Undo>
  struct CallJob final : Job {
    using T = std::invoke_result_t<Call&>;
    CallJob(const boost::asio::any_io_executor& ex, Handler h, Call c, Undo u)
        : executor(ex), work(util::track_work(h, ex)), handler(std::move(h)), call(std::move(c)), undo(std::move(u)) {}
    void run() override {
      if constexpr (std::is_void_v<T>)
        call();
      else
        value.emplace(call());
    }
    void finish(std::exception_ptr error) override {
      if (error) undo();
      if constexpr (std::is_void_v<T>)
        util::post_done(executor, std::move(handler), error);
      else
        util::post_value<T>(executor, std::move(handler), error, error ? std::nullopt : std::move(value));
    }
    boost::asio::any_io_executor executor;
    decltype(util::track_work(std::declval<const Handler&>(), executor)) work;
    Handler handler;
    Call call;
    Undo undo;
    std::optional<std::conditional_t<std::is_void_v<T>, int, T>> value;
  };

  template <class Handler, class Call>
  void read(Handler h, Call call) {
    enqueue(std::move(h), std::move(call), [] {}, false);
  }
  template <class Handler, class Call, class Undo = void (*)()>
  void write(Handler h, Call call, Undo undo = [] {}) {
    enqueue(std::move(h), std::move(call), std::move(undo), true);
  }
  template <class Handler, class Call, class Undo>
  void enqueue(Handler h, Call call, Undo undo, bool is_write) {
    auto job = std::make_unique<CallJob<Handler, Call, Undo>>(executor_, std::move(h), std::move(call), std::move(undo));
    job->is_write = is_write;
    {
      std::lock_guard lock(mu_);
      queue_.push_back(std::move(job));
    }
    wake_.notify_one();
  }

  void serve() {
    for (;;) {
      std::deque<std::unique_ptr<Job>> batch;
      {
        std::unique_lock lock(mu_);
        wake_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
        if (queue_.empty()) return;  // stopping, and every call answered
        batch.swap(queue_);
      }
      while (!batch.empty()) {
        if (!batch.front()->is_write) {
          std::exception_ptr error;
          try {
            batch.front()->run();
          } catch (...) {
            error = std::current_exception();
          }
          batch.front()->finish(error);
          batch.pop_front();
          continue;
        }
        std::vector<std::unique_ptr<Job>> group;
        while (!batch.empty() && batch.front()->is_write) {
          group.push_back(std::move(batch.front()));
          batch.pop_front();
        }
        std::vector<std::function<void()>> writes;
        for (auto& job : group) writes.emplace_back([j = job.get()] { j->run(); });
        // write_group reports every failure in its slots; anything else
        // (memory) fails the whole group rather than this thread.
        std::vector<std::exception_ptr> errors;
        try {
          errors = store_.write_group(writes);
        } catch (...) {
          errors.assign(group.size(), std::current_exception());
        }
        for (std::size_t i = 0; i < group.size(); ++i) group[i]->finish(errors[i]);
      }
    }
  }

  SqliteStore& store_;
  boost::asio::any_io_executor executor_;
  std::mutex mu_;
  std::condition_variable wake_;
  std::deque<std::unique_ptr<Job>> queue_;
  bool stopping_ = false;
  std::thread thread_;  // last: starts once everything it uses exists
};

}  // namespace

std::unique_ptr<AsyncExecutionStore> make_async_store(SqliteStore& store, boost::asio::any_io_executor executor) {
  return std::make_unique<GroupCommitSqlite>(store, std::move(executor));
}

std::unique_ptr<AsyncExecutionStore> make_async_store(AsyncDynamoDBStore& store) {
  return std::make_unique<NativeDynamoDB>(store);
}

std::unique_ptr<AsyncExecutionStore> make_async_store(ExecutionStore& store, boost::asio::any_io_executor executor,
                                                      int threads) {
  return std::make_unique<Offloaded>(store, std::move(executor), threads);
}

}  // namespace harel
