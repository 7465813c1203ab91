#include "fleet.h"

#include "harel/errors.h"
#include "harel/store/open.h"
#include "harel/transport/async_transport.h"
#include "harel/transport/open.h"
#include "runtime_setup.h"

namespace harelctl {

using namespace harel;

namespace {

// How many threads run a blocking store's calls: one per SQLite connection
// (it serializes them anyway), none for memory (its calls never wait), and
// enough for the blocking DynamoDB client to keep requests in flight.
int store_threads(std::string_view store_url) {
  if (store_url.rfind("memory:", 0) == 0) return 0;
  if (store_url.rfind("sqlite:", 0) == 0) return 1;
  return 16;
}

}  // namespace

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
  async_store = make_async_store(*store, io.get_executor(), store_threads(g.store_url));
  // The SQLite transport's calls wait for the file's lock: off the loop, on
  // a thread of their own. The memory transport's never wait.
  if (transport)
    async_transport = make_async_transport(*transport, io.get_executor(), transport_url->rfind("memory:", 0) == 0 ? 0 : 1);
  if (options.dedupe_scope.empty()) options.dedupe_scope = g.store_url;
  runner = std::make_unique<runtime::AsyncRunner>(*async_store, load_definitions(g.definitions_dir), std::move(options),
                                                  async_transport.get());
}

Fleet::~Fleet() {
  // Adapters first: their threads finish the calls still running.
  runner.reset();
  async_transport.reset();
  async_store.reset();
  if (transport) transport->close();
  store->close();
}

}  // namespace harelctl
