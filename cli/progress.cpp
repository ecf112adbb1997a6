#include "cli/progress.h"

#include <unistd.h>

#include <cmath>
#include <cstdio>

#include <fmt/format.h>

namespace exsim::cli {

Progress::Progress(std::string what, std::size_t total)
    : what_(std::move(what)), total_(total), terminal_(isatty(STDERR_FILENO) == 1),
      start_(std::chrono::steady_clock::now()) {}

std::string Progress::clock(double seconds) {
  const auto s = static_cast<long>(std::lround(seconds));
  return s >= 3600 ? fmt::format("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60) : fmt::format("{}:{:02}", s / 60, s % 60);
}

void Progress::done(const std::string& label) {
  std::lock_guard<std::mutex> lock(mutex_);
  ++done_;
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  const double eta = elapsed / static_cast<double>(done_) * static_cast<double>(total_ - done_);
  if (terminal_) {
    constexpr int kWidth = 30;
    const auto filled = static_cast<int>(kWidth * done_ / total_);
    fmt::print(stderr, "\r[{:=<{}}{: <{}}] {}/{} {}  {} elapsed  ETA {}   ", "", filled, "", kWidth - filled, done_, total_,
               what_, clock(elapsed), clock(eta));
  } else {
    fmt::print(stderr, "{} {}/{} done ({}), {} elapsed, ETA {}\n", what_, done_, total_, label, clock(elapsed),
               clock(eta));
  }
  std::fflush(stderr);
}

void Progress::finish() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (terminal_ && done_ > 0) fmt::print(stderr, "\n");
}

std::size_t Progress::completed() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return done_;
}

}  // namespace exsim::cli
