// The six workloads: what a worker and a relay do to the store, one
// operation kind each.
#include <boost/asio/post.hpp>
#include <stdexcept>

#include "workload.h"

namespace harel::bench {
namespace {

// Setup writes run at the highest concurrency: they are not measured.
constexpr std::size_t kSetupConcurrency = 64;
// Read workloads spread their operations over this many executions.
constexpr std::size_t kReadSet = 256;

// "r1", "r2", ...: keeps the ids of every prepared run apart.
std::string fresh_tag() {
  static std::size_t runs = 0;
  std::string tag = std::to_string(++runs);
  return tag.insert(0, 1, 'r');
}

void run_setup(Stores& stores, std::size_t n, const StartOp& op) {
  Recorder recorder(n);
  run_concurrent(stores.io, n, kSetupConcurrency, op, recorder);
  recorder.rethrow_first();
}

// A commit completes with its receipt too, which the workloads ignore.
auto ignoring_receipt(Done done) {
  return [done = std::move(done)](std::exception_ptr e, CommitReceipt) { done(e); };
}

// Commits every execution (version 0: inserts) with its effects, if given.
void insert_all(Stores& stores, std::vector<Execution>& exes, const std::vector<Effects>& effects = {}) {
  static const Effects kNone;
  run_setup(stores, exes.size(), [&](std::size_t i, Done done) {
    stores.async->async_commit(exes[i], effects.empty() ? kNone : effects[i], ignoring_receipt(done));
  });
}

std::vector<Execution> fresh_executions(DataGenerator& data, std::string_view kind, std::size_t n) {
  const std::string base = std::string(kind) + "-" + fresh_tag() + "-";
  std::vector<Execution> exes;
  exes.reserve(n);
  for (std::size_t i = 0; i < n; ++i) exes.push_back(data.execution(base + std::to_string(i)));
  return exes;
}

std::exception_ptr missing(const std::string& id) {
  return std::make_exception_ptr(std::runtime_error("execution '" + id + "' not found"));
}

// insert: an execution's first commit (version 0, no effects).
class Insert final : public Workload {
 public:
  std::string_view name() const override { return "insert"; }
  void prepare(Stores&, DataGenerator& data, std::size_t ops, std::size_t) override {
    exes_ = fresh_executions(data, "ins", ops);
  }
  void op(ExecutionStore& store, std::size_t i) override { store.save(exes_[i]); }
  void op_async(AsyncDynamoDBStore& store, std::size_t i, Done done) override {
    store.async_save(exes_[i], ignoring_receipt(std::move(done)));
  }

 private:
  std::vector<Execution> exes_;
};

// update: a worker's step — the execution with one emit, the handled event's
// dedupe mark and a re-armed timer (a seq reservation + one transaction).
class Update final : public Workload {
 public:
  std::string_view name() const override { return "update"; }
  void prepare(Stores& stores, DataGenerator& data, std::size_t ops, std::size_t concurrency) override {
    // A multiple of the concurrency, so that each execution belongs to one
    // worker and its commits never race (each would be a StoreConflict).
    const std::size_t n = (kReadSet + concurrency - 1) / concurrency * concurrency;
    exes_ = fresh_executions(data, "upd", n);
    insert_all(stores, exes_);
    effects_.clear();
    for (std::size_t i = 0; i < ops; ++i)
      effects_.push_back(data.step_effects(exes_[i % n], exes_[i % n].id + "-ev" + std::to_string(i)));
  }
  void op(ExecutionStore& store, std::size_t i) override { store.commit(next(i), effects_[i]); }
  void op_async(AsyncDynamoDBStore& store, std::size_t i, Done done) override {
    store.async_commit(next(i), effects_[i], ignoring_receipt(std::move(done)));
  }

 private:
  Execution& next(std::size_t i) {
    Execution& exe = exes_[i % exes_.size()];
    ++exe.processed_events;
    return exe;
  }

  std::vector<Execution> exes_;
  std::vector<Effects> effects_;
};

// The read workloads share one set of stored executions per workload.
class ReadWorkload : public Workload {
 public:
  void prepare(Stores& stores, DataGenerator& data, std::size_t, std::size_t) override {
    if (!ids_.empty()) return;  // reads change nothing: written once
    std::vector<Execution> exes = fresh_executions(data, name(), kReadSet);
    std::vector<Effects> effects(exes.size());
    for (std::size_t i = 0; i < exes.size(); ++i) effects[i].processed_event_id = seen_event(i);
    insert_all(stores, exes, effects);
    for (const Execution& exe : exes) ids_.push_back(exe.id);
  }

 protected:
  static std::string seen_event(std::size_t i) { return "seen-" + std::to_string(i % kReadSet); }
  const std::string& id(std::size_t i) const { return ids_[i % ids_.size()]; }

 private:
  std::vector<std::string> ids_;
};

// load: the execution by id (one GetItem).
class Load final : public ReadWorkload {
 public:
  std::string_view name() const override { return "load"; }
  void op(ExecutionStore& store, std::size_t i) override {
    if (!store.load(id(i))) std::rethrow_exception(missing(id(i)));
  }
  void op_async(AsyncDynamoDBStore& store, std::size_t i, Done done) override {
    store.async_load(id(i), [this, i, done = std::move(done)](std::exception_ptr e, std::optional<Execution> exe) {
      done(e || exe ? e : missing(id(i)));
    });
  }
};

// load_for_event: the worker's hot path (one BatchGetItem); every other
// event was already processed.
class LoadForEventWorkload final : public ReadWorkload {
 public:
  std::string_view name() const override { return "load_for_event"; }
  void op(ExecutionStore& store, std::size_t i) override {
    if (!store.load_for_event(id(i), event(i)).execution) std::rethrow_exception(missing(id(i)));
  }
  void op_async(AsyncDynamoDBStore& store, std::size_t i, Done done) override {
    store.async_load_for_event(id(i), event(i), [this, i, done = std::move(done)](std::exception_ptr e, LoadForEvent r) {
      done(e || r.execution ? e : missing(id(i)));
    });
  }

 private:
  static std::string event(std::size_t i) { return i % 2 ? "new-" + std::to_string(i) : seen_event(i); }
};

// list: the first page of list_executions (one Scan of `page` executions).
class List final : public ReadWorkload {
 public:
  explicit List(std::size_t page) { query_.limit = static_cast<std::int64_t>(page); }
  std::string_view name() const override { return "list"; }
  void op(ExecutionStore& store, std::size_t) override { store.list_executions(query_); }
  void op_async(AsyncDynamoDBStore& store, std::size_t, Done done) override {
    store.async_list_executions(query_, [done = std::move(done)](std::exception_ptr e, ExecutionPage) { done(e); });
  }

 private:
  ListQuery query_;
};

// relay: drain the outbox — pending_outbox once (measured), then one ack per
// entry; an operation is one delivered entry.
class Relay final : public Workload {
 public:
  std::string_view name() const override { return "relay"; }
  void prepare(Stores& stores, DataGenerator& data, std::size_t ops, std::size_t) override {
    constexpr std::size_t kEmitsPerCommit = 50;
    std::vector<Execution> exes = fresh_executions(data, "rel", (ops + kEmitsPerCommit - 1) / kEmitsPerCommit);
    std::vector<Effects> effects(exes.size());
    for (std::size_t i = 0; i < ops; ++i) {
      const std::string id = exes[i / kEmitsPerCommit].id + "-out" + std::to_string(i);
      effects[i / kEmitsPerCommit].emits.push_back({"notifier", data.event(id)});
    }
    insert_all(stores, exes, effects);
  }
  void begin(ExecutionStore& store) override { entries_ = store.pending_outbox(); }
  void begin_async(AsyncDynamoDBStore& store, Done done) override {
    store.async_pending_outbox([this, done = std::move(done)](std::exception_ptr e, std::vector<OutboxEntry> pending) {
      entries_ = std::move(pending);
      done(e);
    });
  }
  void op(ExecutionStore& store, std::size_t i) override { store.ack_outbox(seq(i)); }
  void op_async(AsyncDynamoDBStore& store, std::size_t i, Done done) override {
    store.async_ack_outbox(seq(i), std::move(done));
  }

 private:
  std::int64_t seq(std::size_t i) const {
    if (i >= entries_.size()) throw std::runtime_error("the outbox held fewer entries than operations");
    return entries_[i].seq;
  }

  std::vector<OutboxEntry> entries_;
};

}  // namespace

void Workload::begin_async(AsyncDynamoDBStore& store, Done done) {
  boost::asio::post(store.get_executor(), [done = std::move(done)] { done(nullptr); });
}

const std::vector<std::string>& workload_names() {
  static const std::vector<std::string> names{"insert", "update", "load", "load_for_event", "list", "relay"};
  return names;
}

std::unique_ptr<Workload> make_workload(std::string_view name, std::size_t list_page) {
  if (name == "insert") return std::make_unique<Insert>();
  if (name == "update") return std::make_unique<Update>();
  if (name == "load") return std::make_unique<Load>();
  if (name == "load_for_event") return std::make_unique<LoadForEventWorkload>();
  if (name == "list") return std::make_unique<List>(list_page);
  if (name == "relay") return std::make_unique<Relay>();
  throw std::invalid_argument("unknown workload '" + std::string(name) + "'");
}

}  // namespace harel::bench
