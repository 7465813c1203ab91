// What harelctl's runtime commands share: the store, the effective transport
// (effective_transport_url in commands.h), their async adapters, and the
// runner core over them.
//
// Where the async store's calls run: a dynamodb: store's on its natively
// asynchronous twin (AsyncDynamoDBStore), whose requests are driven by an
// event loop and thread the Fleet keeps for its lifetime — not by `io`,
// because the demo's workers each run an event loop of their own while nobody
// runs `io`, and a loop that always runs serves every caller's thread alike.
// The blocking SQLite and memory stores' calls run on dedicated threads or
// inline (make_async_store in async_execution_store.h). Either way a caller's
// coroutine resumes on its own executor.
#pragma once

#include <future>
#include <memory>
#include <optional>
#include <string>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_future.hpp>

#include "commands.h"
#include "harel/errors.h"
#include "harel/runtime/async_runner.h"
#include "harel/store/execution_store.h"
#include "harel/transport/transport.h"

namespace harelctl {

struct Fleet {
  // Opens the store and (where there is one) the transport. `transport_url`
  // overrides the effective one ("" : none).
  Fleet(const Globals& g, harel::runtime::RunnerOptions options, std::optional<std::string> transport_url);
  ~Fleet();

  // Runs one coroutine to completion on `io`, on this thread. While it waits
  // for a call running elsewhere (the native store's loop), `io` has nothing
  // queued: the work guard keeps io.run() from returning before `op` has.
  template <class T>
  T run(boost::asio::awaitable<T> op) {
    std::future<T> result =
        boost::asio::co_spawn(io, holding(std::move(op), boost::asio::make_work_guard(io)), boost::asio::use_future);
    io.restart();
    io.run();
    return result.get();
  }

  boost::asio::io_context io;
  std::unique_ptr<harel::ExecutionStore> store;  // blocking, for the commands' own reads
  std::unique_ptr<harel::Transport> transport;   // null: none
  std::optional<std::string> transport_url;
  std::unique_ptr<harel::AsyncExecutionStore> async_store;
  std::unique_ptr<harel::AsyncTransport> async_transport;
  std::unique_ptr<harel::runtime::AsyncRunner> runner;

 private:
  class NativeStore;  // fleet.cpp

  template <class T>
  static boost::asio::awaitable<T> holding(boost::asio::awaitable<T> op,
                                           boost::asio::executor_work_guard<boost::asio::io_context::executor_type>) {
    co_return co_await std::move(op);
  }

  std::unique_ptr<NativeStore> native_;  // a dynamodb: store's, behind async_store; null for the others
};

}  // namespace harelctl
