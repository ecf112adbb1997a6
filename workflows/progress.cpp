#include "workflows/progress.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include <fmt/format.h>

namespace exsim::workflows {

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
    draw(static_cast<double>(done_), elapsed);
  } else {
    fmt::print(stderr, "{} {}/{} done ({}), {} elapsed, ETA {}\n", what_, done_, total_, label, clock(elapsed),
               clock(eta));
  }
  std::fflush(stderr);
}

void Progress::partial(double fraction) {
  std::lock_guard<std::mutex> lock(mutex_);
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  if (terminal_ && elapsed >= 1.0) draw(static_cast<double>(done_) + std::clamp(fraction, 0.0, 1.0), elapsed);
}

void Progress::advance() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    ++done_;
  }
  partial(0);
}

void Progress::draw(double items, double elapsed) {
  constexpr int kWidth = 30;
  const double total = static_cast<double>(total_);
  const auto filled = static_cast<int>(kWidth * items / total);
  const double eta = items > 0 ? elapsed / items * (total - items) : 0;
  fmt::print(stderr, "\r[{:=<{}}{: <{}}] {}/{} {}  {} elapsed  ETA {}   ", "", filled, "", kWidth - filled,
             static_cast<std::size_t>(items), total_, what_, clock(elapsed), clock(eta));
  std::fflush(stderr);
  drawn_ = true;
}

void Progress::finish() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (drawn_) fmt::print(stderr, "\n");
}

std::size_t Progress::completed() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return done_;
}

}  // namespace exsim::workflows
