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
#include <boost/asio/execution/outstanding_work.hpp>
#include <boost/asio/prefer.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/thread_pool.hpp>

namespace harel::util {

// Posts `invoke(handler)` to the handler's associated executor (default
// `fallback`). Asio posts only to executors that can promise never to run
// inline, which the type-erased completion executor of an
// any_completion_handler cannot: so the post goes to the io_context it wraps
// (a coroutine's loop, say), or else to `fallback`, from where the handler is
// dispatched to its own.
template <class Handler, class Invoke>
void post_completion(const boost::asio::any_io_executor& fallback, Handler handler, Invoke invoke) {
  const auto ex = boost::asio::get_associated_executor(handler, fallback);
  boost::asio::any_io_executor loop = fallback;
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

// The handler's associated executor, counting outstanding work: holding it
// keeps the handler's loop running while its call is away on another thread.
template <class Handler>
auto track_work(const Handler& handler, const boost::asio::any_io_executor& fallback) {
  return boost::asio::prefer(boost::asio::get_associated_executor(handler, fallback),
                             boost::asio::execution::outstanding_work.tracked);
}

// Completes a void(exception_ptr) handler through post_completion.
template <class Handler>
void post_done(const boost::asio::any_io_executor& fallback, Handler handler, std::exception_ptr error) {
  post_completion(fallback, std::move(handler), [error](auto& h) { std::move(h)(error); });
}

// Completes a void(exception_ptr, T) handler through post_completion (T{}
// when there is no value, i.e. on error).
template <class T, class Handler>
void post_value(const boost::asio::any_io_executor& fallback, Handler handler, std::exception_ptr error,
                std::optional<T> value) {
  post_completion(fallback, std::move(handler), [error, value = std::move(value)](auto& h) mutable {
    std::move(h)(error, value ? std::move(*value) : T{});
  });
}

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
    auto work = track_work(handler, executor_);
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
      post_done(executor_, std::move(handler), error);
    } else {
      std::optional<T> value;
      try {
        value.emplace(call());
      } catch (...) {
        error = std::current_exception();
      }
      post_value<T>(executor_, std::move(handler), error, std::move(value));
    }
  }

  boost::asio::any_io_executor executor_;
  std::optional<boost::asio::thread_pool> pool_;
};

}  // namespace harel::util
