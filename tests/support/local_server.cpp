#include "support/local_server.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <thread>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>

extern char** environ;

namespace harel::testing {
namespace {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;

unsigned short free_port() {
  asio::io_context io;
  tcp::acceptor a(io, {asio::ip::make_address("127.0.0.1"), 0});
  return a.local_endpoint().port();
}

bool accepts(unsigned short port) {
  asio::io_context io;
  tcp::socket s(io);
  boost::system::error_code ec;
  s.connect({asio::ip::make_address("127.0.0.1"), port}, ec);
  return !ec;
}

}  // namespace

LocalServer::LocalServer(const std::function<std::vector<std::string>(unsigned short)>& argv_for,
                         std::chrono::seconds startup)
    : port_(free_port()) {
  const std::vector<std::string> argv = argv_for(port_);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  // DynamoDB Local writes a metadata file into its working directory.
  const std::string cwd = std::filesystem::temp_directory_path().string();
  posix_spawn_file_actions_addchdir_np(&actions, cwd.c_str());
  const int rc = posix_spawnp(&pid_, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) throw std::runtime_error("cannot start " + argv[0] + ": " + std::strerror(rc));
  const auto deadline = std::chrono::steady_clock::now() + startup;
  while (!accepts(port_)) {
    int status = 0;
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      throw std::runtime_error(argv[0] + " exited during startup (status " + std::to_string(status) + ")");
    }
    if (std::chrono::steady_clock::now() > deadline) {
      stop();
      throw std::runtime_error(argv[0] + " did not listen on port " + std::to_string(port_) + " in time");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

LocalServer::~LocalServer() { stop(); }

std::string LocalServer::url() const { return "http://127.0.0.1:" + std::to_string(port_); }

void LocalServer::stop() {
  if (pid_ <= 0) return;
  kill(pid_, SIGTERM);
  for (int i = 0; i < 50; ++i) {
    if (waitpid(pid_, nullptr, WNOHANG) == pid_) {
      pid_ = -1;
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  kill(pid_, SIGKILL);
  waitpid(pid_, nullptr, 0);
  pid_ = -1;
}

std::unique_ptr<LocalServer> start_dynamodb_local() {
  const std::string dir = HAREL_DYNAMODB_LOCAL_DIR;
  if (!std::filesystem::exists(dir + "/DynamoDBLocal.jar"))
    throw std::runtime_error("DynamoDB Local is not installed in " + dir + " (run scripts/install-deps.sh --test)");
  return std::make_unique<LocalServer>(
      [&](unsigned short port) {
        return std::vector<std::string>{"java", "-Djava.library.path=" + dir + "/DynamoDBLocal_lib", "-jar",
                                        dir + "/DynamoDBLocal.jar", "-inMemory", "-port", std::to_string(port)};
      },
      std::chrono::seconds(60));
}

std::unique_ptr<LocalServer> start_moto() {
  return std::make_unique<LocalServer>(
      [](unsigned short port) {
        return std::vector<std::string>{"moto_server", "-H", "127.0.0.1", "-p", std::to_string(port)};
      },
      std::chrono::seconds(60));
}

}  // namespace harel::testing
