// Runs blocking calls off an event loop and completes Asio handlers with their
// results: the one mechanism behind the async adapters of the blocking stores
// and transports (async_execution_store.h, async_transport.h).
#pragma once

#include <exception>
#include <optional>
#include <type_traits>
#include <utility>

#include <boost/asio/any_completion_handler.hpp>
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/associated_executor.hpp>
#include <boost/asio/bind_executor.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/thread_pool.hpp>

namespace harel::util {

class Offloader {
 public:
  // `threads` dedicated threads run the calls; 0 runs each call inline in
  // the initiating function. Handlers complete on their associated executor,
  // default `completion_executor`, always through a post (never inline).
  Offloader(boost::asio::any_io_executor completion_executor, int threads) : executor_(std::move(completion_executor)) {
    if (threads > 0) pool_.emplace(static_cast<std::size_t>(threads));
  }
  // Waits for the calls still running on the threads.
  ~Offloader() {
    if (pool_) pool_->join();
  }
  Offloader(const Offloader&) = delete;
  Offloader& operator=(const Offloader&) = delete;

  const boost::asio::any_io_executor& executor() const noexcept { return executor_; }

  // Runs `call` and completes `handler` with (exception, value) — or, for a
  // call returning void, with (exception).
  template <class Handler, class Call>
  void run(Handler handler, Call call) {
    if (!pool_) {
      complete(std::move(handler), std::move(call));
      return;
    }
    // The work guard keeps the loop running while the call is away.
    auto work = boost::asio::make_work_guard(executor_);
    boost::asio::post(*pool_, [this, handler = std::move(handler), call = std::move(call), work = std::move(work)]() mutable {
      complete(std::move(handler), std::move(call));
    });
  }

 private:
  template <class Handler, class Call>
  void complete(Handler handler, Call call) {
    using T = std::invoke_result_t<Call&>;
    std::exception_ptr error;
    if constexpr (std::is_void_v<T>) {
      try {
        call();
      } catch (...) {
        error = std::current_exception();
      }
      post_to(std::move(handler), [error](auto& h) { std::move(h)(error); });
    } else {
      std::optional<T> value;
      try {
        value.emplace(call());
      } catch (...) {
        error = std::current_exception();
      }
      post_to(std::move(handler), [error, value = std::move(value)](auto& h) mutable {
        std::move(h)(error, value ? std::move(*value) : T{});
      });
    }
  }

  // Posts `invoke(handler)` to the handler's associated executor. Asio posts
  // only to executors that can promise never to run inline, which the
  // type-erased completion executor of an any_completion_handler cannot: so
  // the post goes to the io_context it wraps (a coroutine's loop, say), or
  // else to ours, from where the handler is dispatched to its own.
  template <class Handler, class Invoke>
  void post_to(Handler handler, Invoke invoke) {
    const auto ex = boost::asio::get_associated_executor(handler, executor_);
    boost::asio::any_io_executor loop = executor_;
    if constexpr (std::is_same_v<std::decay_t<decltype(ex)>, boost::asio::any_io_executor>) {
      loop = ex;
    } else if (const auto* io = ex.template target<boost::asio::io_context::executor_type>()) {
      loop = *io;
    } else if (const auto* any = ex.template target<boost::asio::any_io_executor>()) {
      loop = *any;
    }
    boost::asio::post(loop, boost::asio::bind_executor(ex, [handler = std::move(handler), invoke = std::move(invoke)]() mutable {
                        invoke(handler);
                      }));
  }

  boost::asio::any_io_executor executor_;
  std::optional<boost::asio::thread_pool> pool_;
};

}  // namespace harel::util
