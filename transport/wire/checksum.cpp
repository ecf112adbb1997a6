#include "transport/wire/checksum.h"

#include <cstring>

namespace exsim::transport {
namespace {

// Two 64-bit lanes; GCC and Clang compile the arithmetic to SSE2 (or wider).
using Lanes = std::uint64_t __attribute__((vector_size(16)));
using Words = std::uint32_t __attribute__((vector_size(16)));

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

  // One 64-byte block: sixteen 32-bit words, widened to 64 bits, two a step
  // into each lane pair. 32-bit words in 64-bit sums keep a change of one word
  // times a distance in words from wrapping to zero (with 64-bit words, flipping
  // the top bit of two words an even number of blocks apart went unseen).
  void add(const unsigned char* block) {
    const Words zero = {};
    for (int k = 0; k < 4; ++k) {
      Words words;
      std::memcpy(&words, block + 16 * k, sizeof words);
      a[k] += reinterpret_cast<Lanes>(__builtin_shufflevector(words, zero, 0, 4, 1, 5));
      b[k] += a[k];
      a[k] += reinterpret_cast<Lanes>(__builtin_shufflevector(words, zero, 2, 6, 3, 7));
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
