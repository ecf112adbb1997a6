#include "transport/testbed/speed_probe.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>

namespace exsim::transport {
namespace {

// A dependent chain of multiplications: the same instructions on any run, no
// memory traffic, nothing the compiler can fold away.
double time_loop_us() {
  const auto start = std::chrono::steady_clock::now();
  std::uint64_t x = 88172645463325252ULL;
  for (int i = 0; i < 1'000'000; ++i) x = x * 6364136223846793005ULL + 1442695040888963407ULL;
  asm volatile("" : : "r"(x));
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

double probe_speed_us() {
  double best = time_loop_us();
  for (int i = 0; i < 2; ++i) best = std::min(best, time_loop_us());
  return best;
}

double speed_deviation(double before, double after, double reference) {
  return std::max(std::abs(before / reference - 1), std::abs(after / reference - 1));
}

}  // namespace exsim::transport
