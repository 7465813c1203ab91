#include "worker_processes.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <thread>

#include <boost/json/parse.hpp>

namespace harelctl {
namespace bj = boost::json;
using namespace harel;

namespace {

// A status waitpid could not collect (the child is gone all the same).
constexpr int kLost = -1;

std::vector<std::string> worker_command(const Globals& g, const std::string& transport_url, int concurrency,
                                        bool trace) {
  std::vector<std::string> args{"harelctl", "--store", g.store_url, "--transport", transport_url};
  if (!g.definitions_dir.empty()) args.insert(args.end(), {"--definitions", g.definitions_dir});
  args.insert(args.end(), {"--json", "worker", "--concurrency", std::to_string(concurrency), "--status-every", "0"});
  if (trace) args.emplace_back("--trace");
  return args;
}

std::string read_all(int fd) {
  std::string text;
  char buf[4096];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n > 0)
      text.append(buf, static_cast<std::size_t>(n));
    else if (n == 0 || errno != EINTR)
      return text;
  }
}

// The counters of a `harelctl worker --json` summary.
WorkerCounts parse_summary(const std::string& who, const std::string& text) {
  boost::system::error_code ec;
  const bj::value summary = bj::parse(text, ec);
  const bj::object* fields = ec ? nullptr : summary.if_object();
  if (!fields) throw WorkerProcessError(who + " printed no JSON summary: '" + text + "'");
  auto field = [&](const char* name) {
    const bj::value* v = fields->if_contains(name);
    if (!v || !v->is_number()) throw WorkerProcessError(who + "'s summary has no number '" + name + "': " + text);
    return v;
  };
  WorkerCounts counts;
  for (const auto& [name, counter] : kWorkerCounters) counts.*counter = field(name)->to_number<std::int64_t>();
  counts.cpu_s = field("cpu_s")->to_number<double>();
  return counts;
}

// Collects the child's exit status if it has exited (with flags 0: once it does).
bool reap(pid_t pid, std::optional<int>& status, int flags) {
  if (status) return true;
  int raw = 0;
  pid_t r;
  do r = ::waitpid(pid, &raw, flags);
  while (r < 0 && errno == EINTR);
  if (r == 0) return false;
  status = r == pid ? raw : kLost;
  return true;
}

std::string describe(int status, bool killed) {
  if (killed)
    return "it did not stop within " + std::to_string(kWorkerStopTimeout.count()) + " s of SIGTERM and was killed";
  if (status == kLost) return "its exit status was lost (waitpid failed)";
  if (WIFEXITED(status)) return "exit status " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status))
    return "killed by signal " + std::to_string(WTERMSIG(status)) + " (" + ::strsignal(WTERMSIG(status)) + ")";
  return "wait status " + std::to_string(status);
}

}  // namespace

std::string shared_transport_url(const Globals& g, int processes) {
  const auto url = effective_transport_url(g);
  std::string problem;
  if (g.store_url.rfind("memory:", 0) == 0)
    problem = "store 'memory:' lives in one process";
  else if (!url)
    problem = "store '" + g.store_url + "' has no transport by default";
  else if (url->rfind("memory:", 0) == 0)
    problem = "transport 'memory:' lives in one process";
  if (problem.empty()) return *url;
  throw InvalidArgument("demo --processes " + std::to_string(processes) +
                        " needs a store and a transport its worker processes can share, and " + problem +
                        ": use --store sqlite:PATH (its transport is in the same file), or a DynamoDB store with "
                        "--transport sqlite:PATH (or HAREL_TRANSPORT)");
}

WorkerProcesses::WorkerProcesses(const Globals& g, const std::string& transport_url, int count, int concurrency,
                                 bool trace) {
  const auto args = worker_command(g, transport_url, concurrency, trace);
  try {
    for (int i = 0; i < count; ++i) start(args);
  } catch (...) {
    shut_down();  // the destructor does not run for a constructor that throws
    throw;
  }
}

WorkerProcesses::~WorkerProcesses() { shut_down(); }

void WorkerProcesses::shut_down() {
  terminate();
  for (const Child& c : children_) ::close(c.out);
}

void WorkerProcesses::start(const std::vector<std::string>& args) {
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  // Close-on-exec, so no later child holds this one's pipe open.
  int out[2];
  if (::pipe2(out, O_CLOEXEC) != 0)
    throw WorkerProcessError(std::string("cannot start a worker process: pipe: ") + std::strerror(errno));
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid == 0) {
    // This process has threads: only async-signal-safe calls until exec.
    // A demo killed outright takes its workers with it (SIGTERM: they stop cleanly).
    ::prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (::getppid() != parent) ::_exit(127);
    ::dup2(out[1], STDOUT_FILENO);
    ::execv("/proc/self/exe", argv.data());
    ::_exit(127);
  }
  const int fork_errno = errno;
  ::close(out[1]);
  if (pid < 0) {
    ::close(out[0]);
    throw WorkerProcessError(std::string("cannot start a worker process: fork: ") + std::strerror(fork_errno));
  }
  children_.push_back(Child{pid, out[0], std::nullopt, false});
}

std::string WorkerProcesses::name(std::size_t i) const {
  return "worker process " + std::to_string(i + 1) + " of " + std::to_string(children_.size()) + " (pid " +
         std::to_string(children_[i].pid) + ")";
}

void WorkerProcesses::check() {
  for (std::size_t i = 0; i < children_.size(); ++i) {
    Child& c = children_[i];
    if (reap(c.pid, c.status, WNOHANG))
      throw WorkerProcessError(name(i) + " exited before the demo finished, " + describe(*c.status, c.killed) +
                               " (its stderr is above)");
  }
}

void WorkerProcesses::terminate() {
  for (const Child& c : children_)
    if (!c.status) ::kill(c.pid, SIGTERM);
  const auto deadline = std::chrono::steady_clock::now() + kWorkerStopTimeout;
  for (Child& c : children_) {
    while (!reap(c.pid, c.status, WNOHANG) && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    if (c.status) continue;
    ::kill(c.pid, SIGKILL);
    c.killed = true;
    reap(c.pid, c.status, 0);
  }
}

WorkerCounts WorkerProcesses::stop() {
  terminate();
  WorkerCounts sum;
  for (std::size_t i = 0; i < children_.size(); ++i) {
    const Child& c = children_[i];
    if (c.killed || !WIFEXITED(*c.status) || WEXITSTATUS(*c.status) != 0)
      throw WorkerProcessError(name(i) + " did not stop cleanly: " + describe(*c.status, c.killed) +
                               " (its stderr is above)");
    // It has exited, so its one-line summary is all in the pipe.
    sum += parse_summary(name(i), read_all(c.out));
  }
  return sum;
}

}  // namespace harelctl
