// CallSequence: a store operation written once, driven sync or async.
//
// Each DynamoDB store operation (commit, load, list, ...) is a C++20
// coroutine that never does IO itself: it `co_await`s a DynamoCall (operation
// name + request) or a Delay and gets back the response document (or the
// client's exception, rethrown at the co_await). A driver runs the sequence:
// DynamoDBStore answers each call with the blocking DynamoClient::call,
// AsyncDynamoDBStore with async_call on its executor. So request building,
// response interpretation, conflict translation, seq allocation and the trace
// ring exist exactly once, whatever drives them.
//
//   CallSequence<std::optional<Execution>> load_op(...) {
//     DynamoCall get{"GetItem", request};
//     boost::json::value item = co_await get;
//     co_return ...;
//   }
#pragma once

#include <chrono>
#include <coroutine>
#include <exception>
#include <optional>
#include <string_view>
#include <utility>
#include <variant>

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

namespace harel::store::dynamodb {

// One request to DynamoDB: the action name and its request document.
struct DynamoCall {
  std::string_view operation;  // a literal ("GetItem"): outlives the call
  boost::json::object request;
};

// A call whose failure the sequence wants to inspect rather than propagate:
// awaiting an Attempt yields an Outcome instead of throwing (no try/catch
// around a co_await needed).
struct Attempt {
  DynamoCall call;
};

struct Outcome {
  boost::json::value response;  // null on failure
  std::exception_ptr error;     // null on success
};

// A pause (backoff before re-requesting UnprocessedKeys, polling a table
// until ACTIVE). The driver sleeps (sync) or waits on a timer (async).
struct Delay {
  std::chrono::milliseconds duration;
};

using Step = std::variant<std::monostate, DynamoCall*, Delay>;  // monostate: finished

// The pending call lives in the frame, so awaiters hold nothing but a
// reference and stay trivially destructible.

// What the driver sees of every running sequence, nested ones included.
struct SequenceFrame {
  std::coroutine_handle<> handle;
  SequenceFrame* child = nullptr;  // a nested sequence this one is awaiting
  Step step;                       // the call or delay this frame waits on
  DynamoCall call;                 // the pending call (step points here)
  boost::json::value response;
  std::exception_ptr response_error;
};

template <class T>
class CallSequence {
 public:
  struct promise_type : SequenceFrame {
    std::optional<T> value;
    std::exception_ptr error;

    CallSequence get_return_object() {
      auto h = std::coroutine_handle<promise_type>::from_promise(*this);
      handle = h;
      return CallSequence(h);
    }
    std::suspend_always initial_suspend() noexcept { return {}; }
    std::suspend_always final_suspend() noexcept { return {}; }
    template <class U>
    void return_value(U&& v) {
      value.emplace(std::forward<U>(v));
    }
    void unhandled_exception() { error = std::current_exception(); }

    struct CallAwaiter {
      SequenceFrame& frame;
      bool await_ready() const noexcept { return false; }
      void await_suspend(std::coroutine_handle<>) noexcept { frame.step = &frame.call; }
      boost::json::value await_resume() {
        frame.step = std::monostate{};
        frame.call.request.clear();
        if (auto e = std::exchange(frame.response_error, nullptr)) std::rethrow_exception(e);
        return std::move(frame.response);
      }
    };
    struct AttemptAwaiter {
      SequenceFrame& frame;
      bool await_ready() const noexcept { return false; }
      void await_suspend(std::coroutine_handle<>) noexcept { frame.step = &frame.call; }
      Outcome await_resume() noexcept {
        frame.step = std::monostate{};
        frame.call.request.clear();
        return {std::move(frame.response), std::exchange(frame.response_error, nullptr)};
      }
    };
    struct DelayAwaiter {
      SequenceFrame& frame;
      Delay delay;
      bool await_ready() const noexcept { return delay.duration.count() <= 0; }
      void await_suspend(std::coroutine_handle<>) noexcept { frame.step = delay; }
      void await_resume() noexcept { frame.step = std::monostate{}; }
    };
    // `co_await sub_sequence(...)`: the driver runs the nested sequence's
    // calls, then this one resumes with its result.
    template <class U>
    struct NestedAwaiter {
      SequenceFrame& frame;
      CallSequence<U>& inner;
      bool await_ready() const noexcept { return false; }
      void await_suspend(std::coroutine_handle<>) noexcept { frame.child = &inner.handle_.promise(); }
      U await_resume() { return inner.result(); }
    };
    CallAwaiter await_transform(DynamoCall& pending) {
      call = std::move(pending);
      return {*this};
    }
    AttemptAwaiter await_transform(Attempt& attempt) {
      call = std::move(attempt.call);
      return {*this};
    }
    DelayAwaiter await_transform(Delay delay) { return {*this, delay}; }
    template <class U>
    NestedAwaiter<U> await_transform(CallSequence<U>& inner) {
      return {*this, inner};
    }
  };
  using Handle = std::coroutine_handle<promise_type>;

  CallSequence(CallSequence&& other) noexcept : handle_(std::exchange(other.handle_, {})) {}
  CallSequence& operator=(CallSequence&&) = delete;
  ~CallSequence() {
    if (handle_) handle_.destroy();
  }

  // Runs the sequence to its next step: a call to answer, a delay to wait
  // out, or monostate when it has finished (then take result()).
  Step resume() {
    SequenceFrame* root = &handle_.promise();
    for (;;) {
      SequenceFrame* f = leaf();
      f->handle.resume();
      if (f->child) continue;                     // it started a nested sequence: run that
      if (!f->handle.done()) return f->step;      // it waits on a call or a delay
      if (f == root) return std::monostate{};     // finished
      SequenceFrame* parent = root;               // a nested sequence finished:
      while (parent->child != f) parent = parent->child;
      parent->child = nullptr;                    // its parent takes over again
    }
  }

  // The answer to the pending call, delivered before the next resume().
  void answer(boost::json::value response) { leaf()->response = std::move(response); }
  void fail(std::exception_ptr error) { leaf()->response_error = std::move(error); }

  // The finished sequence's value; rethrows what it raised.
  T result() {
    auto& p = handle_.promise();
    if (p.error) std::rethrow_exception(p.error);
    return std::move(*p.value);
  }

 private:
  template <class>
  friend class CallSequence;
  explicit CallSequence(Handle h) : handle_(h) {}

  SequenceFrame* leaf() {
    SequenceFrame* f = &handle_.promise();
    while (f->child) f = f->child;
    return f;
  }

  Handle handle_;
};

// Operations with nothing to return complete with this.
struct Done {};

}  // namespace harel::store::dynamodb
