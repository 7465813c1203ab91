#include "harel/runtime/runner.h"

#include <future>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/system_executor.hpp>
#include <boost/asio/use_future.hpp>

#include "harel/runtime/async_runner.h"
#include "util/random_id.h"

namespace harel::runtime {

namespace asio = boost::asio;

struct DurableRunner::Impl {
  Impl(ExecutionStore& store, std::shared_ptr<const Definitions> definitions, RunnerOptions options)
      // Inline calls: each completion is posted to the calling thread's own
      // loop (the coroutine's executor), never to this fallback executor.
      : async_store(make_async_store(store, asio::system_executor(), 0)),
        core(*async_store, std::move(definitions), std::move(options)) {}

  // Runs one of the core's coroutines to completion on this thread.
  template <class T>
  T run(asio::awaitable<T> op) {
    asio::io_context io;
    std::future<T> result = asio::co_spawn(io, std::move(op), asio::use_future);
    io.run();
    return result.get();
  }

  std::unique_ptr<AsyncExecutionStore> async_store;
  AsyncRunner core;
};

DurableRunner::DurableRunner(ExecutionStore& store, std::shared_ptr<const Definitions> definitions,
                             RunnerOptions options)
    : impl_(std::make_unique<Impl>(store, std::move(definitions), std::move(options))) {}

DurableRunner::~DurableRunner() = default;

Execution DurableRunner::create(std::string_view definition_id, boost::json::object context,
                                std::optional<std::string> id) {
  return impl_->run(impl_->core.create(std::string(definition_id), std::move(context), std::move(id)));
}

ProcessOutcome DurableRunner::process(std::string_view id, const Event& event) {
  return impl_->run(impl_->core.process(std::string(id), event));
}

std::int64_t DurableRunner::relay_once(std::chrono::milliseconds grace) { return impl_->run(impl_->core.relay_once(grace)); }

std::int64_t DurableRunner::sweep_once() { return impl_->run(impl_->core.sweep_once()); }

const RunnerStats& DurableRunner::stats() const { return impl_->core.stats(); }

EpochSeconds DurableRunner::now() const { return impl_->core.now(); }

Event make_event(std::string kind, boost::json::object data) {
  return Event{"ev-" + util::random_id(), std::move(kind), std::nullopt, std::nullopt, std::move(data), {}};
}

}  // namespace harel::runtime
