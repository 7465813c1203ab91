#include "fleet.h"

#include <thread>

#include "harel/errors.h"
#include "harel/store/async_dynamodb_store.h"
#include "harel/store/open.h"
#include "harel/store/sqlite_store.h"
#include "harel/transport/async_transport.h"
#include "harel/transport/open.h"
#include "runtime_setup.h"

namespace harelctl {

namespace asio = boost::asio;
using namespace harel;

// The AsyncDynamoDBStore and the event loop that drives its requests, run by
// a thread of its own until destruction. Callers on any thread start
// operations on it; their handlers complete on their own executors.
class Fleet::NativeStore {
 public:
  explicit NativeStore(DynamoDBConnect connect) {
    try {
      store_ = AsyncDynamoDBStore::async_create(io_.get_executor(), std::move(connect), asio::use_future).get();
    } catch (...) {
      stop();
      throw;
    }
  }
  ~NativeStore() {
    stop();
    store_->close();
  }
  NativeStore(const NativeStore&) = delete;
  NativeStore& operator=(const NativeStore&) = delete;

  AsyncDynamoDBStore& store() { return *store_; }

 private:
  // Lets the loop return once the calls in flight have finished, and waits
  // for it: the store is then closed with nothing running on its loop.
  void stop() {
    work_.reset();
    thread_.join();
  }

  asio::io_context io_{1};  // one thread runs it
  asio::executor_work_guard<asio::io_context::executor_type> work_ = asio::make_work_guard(io_);
  std::thread thread_{[this] { io_.run(); }};
  std::unique_ptr<AsyncDynamoDBStore> store_;
};

std::optional<std::string> effective_transport_url(const Globals& g) {
  if (!g.transport_url.empty()) return g.transport_url;
  if (g.store_url.rfind("sqlite:", 0) == 0) return "sqlite:" + g.store_url.substr(7);
  if (g.store_url.rfind("memory:", 0) == 0) return std::string("memory:");
  return std::nullopt;
}

InvalidArgument no_transport(const Globals& g, const std::string& command) {
  return InvalidArgument(command + " needs a transport and store '" + g.store_url +
                         "' has none by default: pass --transport sqlite:PATH (a queue in an SQLite file) or "
                         "memory: (in-process), or set HAREL_TRANSPORT");
}

Fleet::Fleet(const Globals& g, runtime::RunnerOptions options, std::optional<std::string> url)
    : store(open_store(g.store_url)), transport_url(std::move(url)) {
  if (transport_url) transport = open_transport(*transport_url);
  if (g.store_url.rfind("dynamodb:", 0) == 0) {
    native_ = std::make_unique<NativeStore>(dynamodb_connect(g.store_url));
    async_store = make_async_store(native_->store());
  } else if (auto* sqlite = dynamic_cast<SqliteStore*>(store.get())) {
    // One thread (its connection serializes the calls anyway), with group commit.
    async_store = make_async_store(*sqlite, io.get_executor());
  } else {
    async_store = make_async_store(*store, io.get_executor(), 0);  // memory: its calls never wait
  }
  // The SQLite transport's calls wait for the file's lock: off the loop, on
  // a thread of their own. The memory transport's never wait.
  if (transport)
    async_transport = make_async_transport(*transport, io.get_executor(), transport_url->rfind("memory:", 0) == 0 ? 0 : 1);
  if (options.dedupe_scope.empty()) options.dedupe_scope = g.store_url;
  runner = std::make_unique<runtime::AsyncRunner>(*async_store, load_definitions(g.definitions_dir), std::move(options),
                                                  async_transport.get());
}

Fleet::~Fleet() {
  // Users first: the adapters' threads finish the calls still running, the
  // native store's loop its requests.
  runner.reset();
  async_transport.reset();
  async_store.reset();
  native_.reset();
  if (transport) transport->close();
  store->close();
}

}  // namespace harelctl
