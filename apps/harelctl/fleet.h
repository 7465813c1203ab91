// What harelctl's runtime commands share: the store, the effective transport
// (effective_transport_url in commands.h), their async adapters on one event
// loop, and the runner core over them.
#pragma once

#include <future>
#include <memory>
#include <optional>
#include <string>

#include <boost/asio/co_spawn.hpp>
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

  // Runs one coroutine to completion on `io`.
  template <class T>
  T run(boost::asio::awaitable<T> op) {
    std::future<T> result = boost::asio::co_spawn(io, std::move(op), boost::asio::use_future);
    io.restart();
    io.run();
    return result.get();
  }

  boost::asio::io_context io;
  std::unique_ptr<harel::ExecutionStore> store;
  std::unique_ptr<harel::Transport> transport;  // null: none
  std::optional<std::string> transport_url;
  std::unique_ptr<harel::AsyncExecutionStore> async_store;
  std::unique_ptr<harel::AsyncTransport> async_transport;
  std::unique_ptr<harel::runtime::AsyncRunner> runner;
};

}  // namespace harelctl
