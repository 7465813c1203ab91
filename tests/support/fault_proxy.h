// FaultProxy: a loopback HTTP proxy that sits between a DynamoDB client and a
// real server (DynamoDB Local) and injects faults on a seeded schedule.
//
// Every request the proxy reads draws its fate from one seeded generator, in
// arrival order: with probability `rate` one of `kinds` (uniformly), else it
// is forwarded untouched. So a single-threaded client sees the same schedule
// for the same seed, run after run. The faults are what a client meets on a
// real network in front of DynamoDB:
//
//   Delay         wait up to max_delay, then forward normally
//   Reset         read the request, then RST the connection (never forwarded)
//   Http500       answer 500 InternalServerError (never forwarded)
//   Http503       answer 503 with a non-JSON body, as a load balancer does
//   Throttling    answer 400 ThrottlingException
//   Provisioned   answer 400 ProvisionedThroughputExceededException
//   DropResponse  forward, let the server APPLY the request, then close the
//                 client's connection without answering — the ambiguous
//                 failure that ClientRequestToken exists for
//
// The proxy runs its own thread and io_context and listens on 127.0.0.1:0.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace harel::testing {

enum class Fault { Delay, Reset, Http500, Http503, Throttling, Provisioned, DropResponse };
inline constexpr std::size_t kFaultKinds = 7;
const char* fault_name(Fault fault);

struct FaultPlan {
  std::uint64_t seed = 1;
  double rate = 0.2;  // fraction of requests that get a fault
  std::vector<Fault> kinds{Fault::Delay,      Fault::Reset,       Fault::Http500,     Fault::Http503,
                           Fault::Throttling, Fault::Provisioned, Fault::DropResponse};
  std::chrono::milliseconds max_delay{40};
};

struct FaultCounts {
  std::int64_t requests = 0;                        // requests read from clients
  std::array<std::int64_t, kFaultKinds> injected{};  // by Fault
  // Faults that hit a TransactWriteItems, by Fault (the commits' own writes).
  std::array<std::int64_t, kFaultKinds> on_transactions{};

  std::int64_t of(Fault f) const { return injected[static_cast<std::size_t>(f)]; }
  std::int64_t total() const;
  std::string summary() const;  // "1234 faults in 6170 requests: delay=180 reset=..."
};

class FaultProxy {
 public:
  // `upstream_url`: http://host:port of the real server.
  FaultProxy(const std::string& upstream_url, FaultPlan plan);
  ~FaultProxy();
  FaultProxy(const FaultProxy&) = delete;
  FaultProxy& operator=(const FaultProxy&) = delete;

  std::string url() const;  // http://127.0.0.1:PORT
  // Off: every request is forwarded untouched (and draws nothing).
  void set_faults_enabled(bool enabled);
  FaultCounts counts() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace harel::testing
