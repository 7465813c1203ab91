#include "support/servers.h"

#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <random>

#include "support/local_server.h"

namespace harel::testing {
namespace {

std::string endpoint(const char* env_var, std::unique_ptr<LocalServer>& slot, std::unique_ptr<LocalServer> (*start)()) {
  if (const char* url = std::getenv(env_var); url && *url) return url;
  static std::mutex mutex;
  std::lock_guard lock(mutex);
  if (!slot) slot = start();
  return slot->url();
}

// Static: destroyed (servers stopped) at process exit.
std::unique_ptr<LocalServer> dynamodb_local;
std::unique_ptr<LocalServer> moto;

}  // namespace

std::string dynamodb_local_endpoint() {
  return endpoint("HAREL_TEST_DYNAMODB_LOCAL", dynamodb_local, start_dynamodb_local);
}

std::string moto_endpoint() { return endpoint("HAREL_TEST_MOTO", moto, start_moto); }

std::string unique_prefix(std::string_view base) {
  static std::atomic<int> counter{0};
  static const unsigned salt = std::random_device{}();
  return std::string(base) + "_" + std::to_string(getpid()) + "_" + std::to_string(++counter) + "_" +
         std::to_string(salt % 100000);
}

}  // namespace harel::testing
