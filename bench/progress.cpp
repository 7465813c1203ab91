#include "progress.h"

#include <unistd.h>

#include <cstdio>

namespace harel::bench {

Progress::Progress() : tty_(isatty(STDERR_FILENO) != 0) {}

void Progress::begin(std::string label, std::size_t total) {
  label_ = std::move(label);
  total_ = total;
  start_ = Clock::now();
  next_print_ = start_;
  update(0);
}

void Progress::update(std::size_t done) {
  if (!tty_) return;
  const auto now = Clock::now();
  if (now < next_print_) return;
  next_print_ = now + std::chrono::milliseconds(200);
  print(done, false);
}

void Progress::end(std::size_t done) { print(done, true); }

void Progress::print(std::size_t done, bool final) {
  const double seconds = std::chrono::duration<double>(Clock::now() - start_).count();
  const double rate = seconds > 0 ? static_cast<double>(done) / seconds : 0;
  std::fprintf(stderr, "%s%-40s %7zu/%-7zu %9.0f ops/s%s", tty_ ? "\r\033[K" : "", label_.c_str(), done, total_,
               rate, final ? "\n" : "");
  std::fflush(stderr);
}

}  // namespace harel::bench
