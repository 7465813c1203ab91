// AsyncTransport: a Transport's worker-side operations as Asio asynchronous
// operations, so a worker's event loop keeps many leases in flight.
//
// make_async_transport(Transport&, executor, threads) adapts a blocking
// transport (Memory, SQLite): its calls run on `threads` dedicated threads,
// or inline in the initiating function with threads == 0 (MemoryTransport,
// whose calls never wait). A natively asynchronous transport (SQS) implements
// the interface itself.
//
// Semantics and errors are Transport's (transport.h). Completion signatures
// are void(std::exception_ptr, T), the exception being what the blocking call
// would have thrown; handlers run on their associated executor (default:
// get_executor()), never inside the initiating call. Arguments are copied
// when an operation starts. The adapted transport must outlive the adapter.
#pragma once

#include <chrono>
#include <exception>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <boost/asio/any_io_executor.hpp>

#include "harel/detail/async_initiate.h"
#include "harel/transport/transport.h"

namespace harel {

class AsyncTransport {
 public:
  template <class T>
  using Handler = detail::ValueHandler<T>;
  using Duration = std::chrono::milliseconds;

  virtual ~AsyncTransport() = default;
  AsyncTransport(const AsyncTransport&) = delete;
  AsyncTransport& operator=(const AsyncTransport&) = delete;

  virtual boost::asio::any_io_executor get_executor() const = 0;
  // As Transport::durable.
  virtual bool durable() const noexcept = 0;

  // Completes with the number of messages handed to the transport.
  template <class Token>
  auto async_publish(std::vector<Publication> messages, Token&& token) {
    return detail::initiate<std::size_t>(token, [this, m = std::move(messages)](auto h) mutable {
      start_publish(std::move(m), std::move(h));
    });
  }
  template <class Token>
  auto async_claim(std::string_view worker_id, Duration visibility, int max_messages, Token&& token) {
    return detail::initiate<std::vector<Lease>>(token, [this, w = std::string(worker_id), visibility, max_messages](auto h) mutable {
      start_claim(std::move(w), visibility, max_messages, std::move(h));
    });
  }
  // The lease operations complete with what Transport's return: false when
  // the lease had expired.
  template <class Token>
  auto async_ack(Lease lease, Token&& token) {
    return detail::initiate<bool>(token, [this, l = std::move(lease)](auto h) mutable { start_ack(std::move(l), std::move(h)); });
  }
  template <class Token>
  auto async_nack(Lease lease, Duration delay, Token&& token) {
    return detail::initiate<bool>(token, [this, l = std::move(lease), delay](auto h) mutable {
      start_nack(std::move(l), delay, std::move(h));
    });
  }
  template <class Token>
  auto async_defer(Lease lease, Duration delay, Token&& token) {
    return detail::initiate<bool>(token, [this, l = std::move(lease), delay](auto h) mutable {
      start_defer(std::move(l), delay, std::move(h));
    });
  }
  template <class Token>
  auto async_extend(Lease lease, Duration visibility, Token&& token) {
    return detail::initiate<bool>(token, [this, l = std::move(lease), visibility](auto h) mutable {
      start_extend(std::move(l), visibility, std::move(h));
    });
  }
  template <class Token>
  auto async_park(Lease lease, std::string last_error, Token&& token) {
    return detail::initiate<bool>(token, [this, l = std::move(lease), e = std::move(last_error)](auto h) mutable {
      start_park(std::move(l), std::move(e), std::move(h));
    });
  }
  template <class Token>
  auto async_backlog(Token&& token) {
    return detail::initiate<TransportBacklog>(token, [this](auto h) { start_backlog(std::move(h)); });
  }

 protected:
  AsyncTransport() = default;

  virtual void start_publish(std::vector<Publication> messages, Handler<std::size_t> handler) = 0;
  virtual void start_claim(std::string worker_id, Duration visibility, int max_messages,
                           Handler<std::vector<Lease>> handler) = 0;
  virtual void start_ack(Lease lease, Handler<bool> handler) = 0;
  virtual void start_nack(Lease lease, Duration delay, Handler<bool> handler) = 0;
  virtual void start_defer(Lease lease, Duration delay, Handler<bool> handler) = 0;
  virtual void start_extend(Lease lease, Duration visibility, Handler<bool> handler) = 0;
  virtual void start_park(Lease lease, std::string last_error, Handler<bool> handler) = 0;
  virtual void start_backlog(Handler<TransportBacklog> handler) = 0;
};

// A blocking transport's calls on `threads` dedicated threads (0: inline);
// handlers complete on `executor`.
std::unique_ptr<AsyncTransport> make_async_transport(Transport& transport, boost::asio::any_io_executor executor,
                                                     int threads);

}  // namespace harel
