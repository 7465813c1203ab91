// How harel's asynchronous operations start: every one completes with
// (std::exception_ptr, T) — or (std::exception_ptr) — and hands its
// implementation a type-erased handler, so the implementation lives in a .cpp
// file while the caller picks any Asio completion token.
#pragma once

#include <exception>
#include <utility>

#include <boost/asio/any_completion_handler.hpp>
#include <boost/asio/async_result.hpp>

namespace harel::detail {

template <class T>
using ValueHandler = boost::asio::any_completion_handler<void(std::exception_ptr, T)>;
using DoneHandler = boost::asio::any_completion_handler<void(std::exception_ptr)>;

// Starts an operation completing with (exception_ptr, T): `start` is called
// with the ValueHandler<T> that `token` became.
template <class T, class Token, class Start>
auto initiate(Token& token, Start&& start) {
  return boost::asio::async_initiate<Token, void(std::exception_ptr, T)>(
      [](auto handler, Start s) { s(ValueHandler<T>(std::move(handler))); }, token, std::forward<Start>(start));
}

// Starts an operation completing with (exception_ptr) alone.
template <class Token, class Start>
auto initiate_done(Token& token, Start&& start) {
  return boost::asio::async_initiate<Token, void(std::exception_ptr)>(
      [](auto handler, Start s) { s(DoneHandler(std::move(handler))); }, token, std::forward<Start>(start));
}

}  // namespace harel::detail
