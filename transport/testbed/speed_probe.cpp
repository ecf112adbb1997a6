#include "transport/testbed/speed_probe.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <vector>

#include <lz4.h>

namespace exsim::transport {
namespace {

// 64 KiB of rows-like bytes (a third random, the rest a repeating text), which
// LZ4 compresses about as it does the exchange's batches.
const std::vector<char>& probe_block() {
  static const std::vector<char> block = [] {
    std::vector<char> b(64 * 1024);
    std::uint64_t state = 1;
    for (std::size_t i = 0; i < b.size(); ++i) {
      state = state * 6364136223846793005ULL + 1442695040888963407ULL;
      b[i] = i % 3 == 0 ? static_cast<char>(state >> 58) : static_cast<char>('a' + i % 7);
    }
    return b;
  }();
  return block;
}

// A dependent chain of multiplications, then LZ4 over the block four times:
// the core's arithmetic, and the kind of work the exchange does with its
// caches (seen on the development machine: a calibration 30% slower in every
// figure while arithmetic alone ran at full speed). The same work on any run,
// nothing the compiler can fold away.
double time_loop_us() {
  thread_local LZ4_stream_t state;
  thread_local std::vector<char> out(static_cast<std::size_t>(LZ4_compressBound(64 * 1024)));
  const std::vector<char>& in = probe_block();
  const auto start = std::chrono::steady_clock::now();
  std::uint64_t x = 88172645463325252ULL;
  for (int i = 0; i < 500'000; ++i) x = x * 6364136223846793005ULL + 1442695040888963407ULL;
  int compressed = 0;
  for (int i = 0; i < 4; ++i) {
    compressed += LZ4_compress_fast_extState(&state, in.data(), out.data(), static_cast<int>(in.size()),
                                             static_cast<int>(out.size()), 1);
  }
  asm volatile("" : : "r"(x), "r"(compressed));
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

double speed_now_us() {
  std::vector<double> probes{probe_speed_us(), probe_speed_us(), probe_speed_us()};
  std::sort(probes.begin(), probes.end());
  return probes[1];
}

}  // namespace exsim::transport
