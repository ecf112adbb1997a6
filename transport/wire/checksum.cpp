#include "transport/wire/checksum.h"

#include <cstring>

namespace exsim::transport {
namespace {

// Two 64-bit lanes; GCC and Clang compile the arithmetic to SSE2 (or wider).
using Lanes = std::uint64_t __attribute__((vector_size(16)));

inline std::uint64_t mix(std::uint64_t x) {
  x ^= x >> 32;
  x *= 0xd6e8feb86659fd93ULL;
  x ^= x >> 32;
  x *= 0xd6e8feb86659fd93ULL;
  return x ^ (x >> 32);
}

struct Sums {
  Lanes a[4] = {};
  Lanes b[4] = {};

  // One 64-byte block: eight words, one per lane.
  void add(const unsigned char* block) {
    for (int k = 0; k < 4; ++k) {
      Lanes words;
      std::memcpy(&words, block + 16 * k, sizeof words);
      a[k] += words;
      b[k] += a[k];
    }
  }
};

}  // namespace

std::uint64_t checksum64(const void* data, std::size_t size, std::uint64_t seed) {
  const auto* bytes = static_cast<const unsigned char*>(data);
  Sums sums;
  std::size_t i = 0;
  for (; i + 64 <= size; i += 64) sums.add(bytes + i);
  if (i < size) {
    // The tail, zero-padded; the length mixed in below tells padding from zeros.
    unsigned char last[64] = {};
    std::memcpy(last, bytes + i, size - i);
    sums.add(last);
  }
  std::uint64_t h = mix(seed ^ (static_cast<std::uint64_t>(size) * 0x9e3779b97f4a7c15ULL));
  for (int k = 0; k < 4; ++k) {
    h = mix(h ^ sums.a[k][0]) + sums.a[k][1];
    h = mix(h ^ sums.b[k][0]) + sums.b[k][1];
  }
  return mix(h);
}

}  // namespace exsim::transport
