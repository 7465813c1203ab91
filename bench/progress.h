// The progress line on stderr: "workload  mode  done/total  ops/s", rewritten
// in place on a terminal (at most every 200 ms, so printing costs the
// measured loop nothing noticeable); one line per finished run otherwise,
// so a log stays readable.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>

namespace harel::bench {

class Progress {
 public:
  Progress();

  void begin(std::string label, std::size_t total);
  void update(std::size_t done);
  void end(std::size_t done);

 private:
  using Clock = std::chrono::steady_clock;
  void print(std::size_t done, bool final);

  bool tty_;
  std::string label_;
  std::size_t total_ = 0;
  Clock::time_point start_;
  Clock::time_point next_print_;
};

}  // namespace harel::bench
