// A DynamoDB-compatible server as a child process on a free loopback port:
// the tests' servers (support/servers.h) and the benchmark's default
// DynamoDB Local both start theirs through this.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace harel::testing {

// Runs the command `argv_for(port)` for a free loopback port, waits until it
// accepts connections, and stops it (SIGTERM, then SIGKILL) when destroyed.
// Its stdout/stderr go to /dev/null (servers log every request). Raises
// std::runtime_error when it cannot be started, exits, or does not listen
// within `startup`.
class LocalServer {
 public:
  LocalServer(const std::function<std::vector<std::string>(unsigned short port)>& argv_for,
              std::chrono::seconds startup);
  ~LocalServer();
  LocalServer(const LocalServer&) = delete;
  LocalServer& operator=(const LocalServer&) = delete;

  std::string url() const;  // "http://127.0.0.1:PORT"

 private:
  void stop();

  pid_t pid_ = -1;
  unsigned short port_;
};

// AWS's DynamoDB Local (in-memory) from the directory scripts/install-deps.sh
// --test installs it to.
std::unique_ptr<LocalServer> start_dynamodb_local();

// moto_server from PATH.
std::unique_ptr<LocalServer> start_moto();

}  // namespace harel::testing
