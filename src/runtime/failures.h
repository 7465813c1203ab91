// Handling a failure inside the runtime's coroutines: a catch block cannot
// co_await, so a failure is captured as an exception_ptr and examined after.
#pragma once

#include <exception>
#include <string>

#include <boost/asio/awaitable.hpp>

namespace harel::runtime {

// Runs `body()` (an awaitable) and returns what it raised (null: nothing).
template <class Body>
boost::asio::awaitable<std::exception_ptr> capture(Body body) {
  try {
    co_await body();
  } catch (...) {
    co_return std::current_exception();
  }
  co_return nullptr;
}

// The failure's message, for logs and parked messages.
inline std::string describe(const std::exception_ptr& e) {
  try {
    std::rethrow_exception(e);
  } catch (const std::exception& x) {
    return x.what();
  } catch (...) {
    return "unknown error";
  }
}

// Whether the failure is an E.
template <class E>
bool is(const std::exception_ptr& e) {
  try {
    std::rethrow_exception(e);
  } catch (const E&) {
    return true;
  } catch (...) {
    return false;
  }
}

}  // namespace harel::runtime
