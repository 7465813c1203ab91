// Crashes: `harelctl demo` killed with SIGKILL at random (seeded) moments,
// again and again, then resumed — every workflow must still reach its final
// state exactly once, every timer fire, nothing stay stranded.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <random>
#include <thread>

#include <gtest/gtest.h>

#include "harel/store/open.h"
#include "support/servers.h"

namespace harel {
namespace {

namespace fs = std::filesystem;

constexpr int kOrders = 30;

int kills() {
  const char* env = std::getenv("HAREL_CRASH_KILLS");  // --long runs raise it
  return env ? std::atoi(env) : 20;
}

const fs::path& demo_log() {
  static const fs::path log = fs::temp_directory_path() / ("harel-crash-" + std::to_string(::getpid()) + ".log");
  return log;
}

std::string last_demo_output() {
  std::ifstream in(demo_log());
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Runs `harelctl --store URL demo ...` (output to demo_log()); kills it after
// `kill_after` (if set). Returns the exit status, or -1 when it was killed.
int run_demo(const std::string& url, std::optional<std::chrono::milliseconds> kill_after) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    const int log = ::open(demo_log().c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(log, 1);
    ::dup2(log, 2);
    ::execl(HARELCTL_PATH, "harelctl", "--store", url.c_str(), "demo", "--orders", std::to_string(kOrders).c_str(),
            "--run-id", "crash", "--workers", "3", static_cast<char*>(nullptr));
    ::_exit(127);
  }
  if (kill_after) {
    std::this_thread::sleep_for(*kill_after);
    ::kill(pid, SIGKILL);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (WIFSIGNALED(status)) return -1;
  return WEXITSTATUS(status);
}

// Kill delays span a whole demo run on that backend, so kills land anywhere:
// creating, processing, relaying between deliver and ack, sweeping.
void crash_and_resume(const std::string& url, int max_delay_ms) {
  std::mt19937 rng(20261202);  // seeded: the same kill schedule every run
  std::uniform_int_distribution<int> delay_ms(max_delay_ms / 20, max_delay_ms);
  int killed = 0;
  for (int i = 0; i < kills(); ++i) {
    const int status = run_demo(url, std::chrono::milliseconds(delay_ms(rng)));
    if (status == -1) ++killed;
    // A run that ended by itself must have completed the demo successfully.
    ASSERT_TRUE(status == -1 || status == 0) << "demo exited " << status << ":\n" << last_demo_output();
  }
  EXPECT_GT(killed, 0) << "no run was interrupted: the schedule proves nothing";
  // The resumed run checks every order's outcome and that nothing is left.
  EXPECT_EQ(run_demo(url, std::nullopt), 0) << last_demo_output();

  // And exactly once: the ledger counted each successful order once, although
  // relays were killed between delivering and acknowledging.
  auto store = open_store(url);
  int success = 0;
  for (int n = 0; n < kOrders; ++n) success += (n % 10 != 9 && n % 10 != 8);
  EXPECT_EQ(store->load("ledger")->context.at("orders").as_int64(), success);
  EXPECT_TRUE(store->pending_outbox().empty());
  EXPECT_TRUE(store->pending_spawns().empty());
  EXPECT_TRUE(store->due_timers(4102444800.0).empty());
  for (int n = 0; n < kOrders; ++n) {
    const auto exe = store->load("order-crash-" + std::to_string(n));
    ASSERT_TRUE(exe);
    // Each scripted event, timeout and child report applied once: items + Pay/Cancel (+ Timeout + 2 Finished).
    EXPECT_EQ(exe->processed_events, (n % 3 + 1) + 1 + (n % 10 == 9 ? 0 : 3)) << exe->id;
  }
}

TEST(Crashes, SqliteSurvivesKillNine) {
  const fs::path db = fs::temp_directory_path() / ("harel-crash-" + std::to_string(::getpid()) + ".db");
  fs::remove(db);
  crash_and_resume("sqlite:" + db.string(), 600);
  fs::remove(db);
}

TEST(Crashes, DynamoDBLocalSurvivesKillNine) {
  const std::string endpoint = testing::dynamodb_local_endpoint();  // http://127.0.0.1:PORT
  crash_and_resume("dynamodb://" + endpoint.substr(endpoint.find("//") + 2) + "?prefix=" +
                   testing::unique_prefix("crash"),
                   1000);
}

}  // namespace
}  // namespace harel
