#include "transport/testbed/call_probe.h"

#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

namespace exsim::transport {
namespace {

constexpr int kTrips = 200;

[[noreturn]] void fail(const char* what) {
  throw std::runtime_error(std::string("call probe: ") + what + ": " + std::strerror(errno));
}

double nth(std::vector<double> values, double fraction) {
  const auto k = static_cast<std::size_t>(fraction * static_cast<double>(values.size() - 1));
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(k), values.end());
  return values[k];
}

}  // namespace

CallProbe::CallProbe() {
  int pair[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0) fail("socketpair");
  echo_ = ::fork();
  if (echo_ < 0) {
    ::close(pair[0]);
    ::close(pair[1]);
    fail("fork");
  }
  if (echo_ == 0) {
    // The echo process: only calls safe after fork in a threaded program.
    ::close(pair[0]);
    char byte;
    while (::read(pair[1], &byte, 1) == 1) {
      if (::write(pair[1], &byte, 1) != 1) break;
    }
    ::_exit(0);
  }
  ::close(pair[1]);
  socket_ = pair[0];
}

CallProbe::~CallProbe() {
  if (socket_ >= 0) ::close(socket_);  // the echo process reads end-of-file and exits
  if (echo_ > 0) ::waitpid(echo_, nullptr, 0);
}

double CallProbe::probe_us() {
  std::vector<double> trips;
  trips.reserve(kTrips);
  char byte = 'p';
  for (int i = 0; i < kTrips; ++i) {
    const auto start = std::chrono::steady_clock::now();
    if (::write(socket_, &byte, 1) != 1) fail("write");
    if (::read(socket_, &byte, 1) != 1) fail("read");
    trips.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count());
  }
  return nth(std::move(trips), 0.9);
}

double CallProbe::usual_us() { return nth({probe_us(), probe_us(), probe_us()}, 0.5); }

double call_slowdown(double before_us, double after_us, double usual_us) {
  return std::max(before_us, after_us) / usual_us - 1;
}

}  // namespace exsim::transport
