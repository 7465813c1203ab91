// What HttpDynamoClient (http_client.h) can be told: pool size, timeouts,
// retries and TLS trust. Kept apart from the client so that store headers can
// carry these options without pulling in Asio.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>

#include "harel/dynamodb/retry.h"

namespace harel::dynamodb {

struct TlsOptions {
  bool verify_peer = true;  // chain + host name; false only for throwaway test setups
  std::string ca_file;      // a PEM file trusted in addition to the system store
  std::string ca_pem;       // PEM text trusted in addition to the system store
};

struct HttpClientOptions {
  std::size_t max_connections = 16;  // per path (async / blocking), >= 1
  std::chrono::milliseconds connect_timeout{3'000};
  std::chrono::milliseconds request_timeout{10'000};
  // A pooled connection idle for longer is closed instead of reused: servers
  // drop idle keep-alive connections, and racing that drop costs a resend.
  std::chrono::milliseconds max_idle{30'000};
  RetryOptions retry;
  TlsOptions tls;
  std::string user_agent = "harel-cpp";
};

}  // namespace harel::dynamodb
