#include "transport/wire/checksum.h"

#include <cstring>

namespace exsim::transport {
namespace {

inline std::uint64_t mix(std::uint64_t x) {
  x ^= x >> 32;
  x *= 0xd6e8feb86659fd93ULL;
  x ^= x >> 32;
  x *= 0xd6e8feb86659fd93ULL;
  return x ^ (x >> 32);
}

}  // namespace

std::uint64_t checksum64(const void* data, std::size_t size, std::uint64_t seed) {
  const auto* bytes = static_cast<const unsigned char*>(data);
  // Four independent lanes keep the multiplier pipeline busy.
  std::uint64_t lane[4] = {seed ^ 0x9e3779b97f4a7c15ULL, seed + size, ~seed, seed * 0xbf58476d1ce4e5b9ULL};
  std::size_t i = 0;
  for (; i + 32 <= size; i += 32) {
    for (int k = 0; k < 4; ++k) {
      std::uint64_t word;
      std::memcpy(&word, bytes + i + 8 * k, 8);
      lane[k] = (lane[k] ^ word) * 0x9fb21c651e98df25ULL;
      lane[k] ^= lane[k] >> 29;
    }
  }
  std::uint64_t tail = 0;
  std::size_t rest = size - i;
  for (; i + 8 <= size; i += 8) {
    std::uint64_t word;
    std::memcpy(&word, bytes + i, 8);
    lane[0] = mix(lane[0] ^ word);
  }
  std::memcpy(&tail, bytes + i, size - i);
  lane[1] = mix(lane[1] ^ tail ^ (static_cast<std::uint64_t>(rest) << 56));
  return mix(lane[0] ^ mix(lane[1]) ^ mix(lane[2] + 1) ^ mix(lane[3] + 2));
}

}  // namespace exsim::transport
