#include "harel/transport/async_transport.h"

#include "util/offload.h"

namespace harel {
namespace {

// A blocking transport's calls, each run by the Offloader.
class Offloaded final : public AsyncTransport {
 public:
  Offloaded(Transport& transport, boost::asio::any_io_executor executor, int threads)
      : transport_(transport), offload_(std::move(executor), threads) {}
  boost::asio::any_io_executor get_executor() const override { return offload_.executor(); }
  bool durable() const noexcept override { return transport_.durable(); }

 protected:
  void start_publish(std::vector<Publication> messages, Handler<std::size_t> h) override {
    offload_.run(std::move(h), [this, m = std::move(messages)] {
      transport_.publish(m);
      return m.size();
    });
  }
  void start_claim(std::string worker_id, Duration visibility, int max_messages, Handler<std::vector<Lease>> h) override {
    offload_.run(std::move(h), [this, w = std::move(worker_id), visibility, max_messages] {
      return transport_.claim(w, visibility, max_messages);
    });
  }
  void start_ack(Lease lease, Handler<bool> h) override {
    offload_.run(std::move(h), [this, l = std::move(lease)] { return transport_.ack(l); });
  }
  void start_nack(Lease lease, Duration delay, Handler<bool> h) override {
    offload_.run(std::move(h), [this, l = std::move(lease), delay] { return transport_.nack(l, delay); });
  }
  void start_defer(Lease lease, Duration delay, Handler<bool> h) override {
    offload_.run(std::move(h), [this, l = std::move(lease), delay] { return transport_.defer(l, delay); });
  }
  void start_extend(Lease lease, Duration visibility, Handler<bool> h) override {
    offload_.run(std::move(h), [this, l = std::move(lease), visibility] { return transport_.extend(l, visibility); });
  }
  void start_park(Lease lease, std::string last_error, Handler<bool> h) override {
    offload_.run(std::move(h), [this, l = std::move(lease), e = std::move(last_error)] { return transport_.park(l, e); });
  }
  void start_backlog(Handler<TransportBacklog> h) override {
    offload_.run(std::move(h), [this] { return transport_.backlog(); });
  }

 private:
  Transport& transport_;
  util::Offloader offload_;
};

}  // namespace

std::unique_ptr<AsyncTransport> make_async_transport(Transport& transport, boost::asio::any_io_executor executor,
                                                     int threads) {
  return std::make_unique<Offloaded>(transport, std::move(executor), threads);
}

}  // namespace harel
