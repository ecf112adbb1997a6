#include "transport/wire/checksum.h"

#include <algorithm>
#include <cstring>

namespace exsim::transport {
namespace {

// Four 64-bit lanes; GCC and Clang compile the arithmetic to AVX2 where the
// processor has it (target_clones below), else to two SSE2 halves.
using Lanes = std::uint64_t __attribute__((vector_size(32)));
using Words = std::uint32_t __attribute__((vector_size(32)));

inline std::uint64_t mix(std::uint64_t x) {
  x ^= x >> 32;
  x *= 0xd6e8feb86659fd93ULL;
  x ^= x >> 32;
  x *= 0xd6e8feb86659fd93ULL;
  return x ^ (x >> 32);
}

// Adds `blocks` 64-byte blocks at `from` to the lane sums, copying them to `to`
// on the way when it is not null. Each block is sixteen 32-bit words, widened to
// 64 bits, two a step into each lane: lanes 0-1 take words 0-3 of each 16 bytes,
// in two steps, lanes 2-3 words 4-7, and so on (a[k] holds lanes 4k..4k+3).
// 32-bit words in 64-bit sums keep a change of one word times a distance in
// words from wrapping to zero (with 64-bit words, flipping the top bit of two
// words an even number of blocks apart went unseen).
// Not under the sanitizers: the clones' resolver runs while the dynamic loader
// relocates the program, before their runtime is up, and its instrumented entry
// crashes there (`make tsan` died at start-up).
#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
#define EXSIM_CHECKSUM_CLONES
#else
#define EXSIM_CHECKSUM_CLONES __attribute__((target_clones("avx2", "default")))
#endif
EXSIM_CHECKSUM_CLONES void add_blocks(std::uint64_t* a_state, std::uint64_t* b_state, const unsigned char* from,
                                      unsigned char* to, std::size_t blocks) {
  Lanes a[2], b[2];
  std::memcpy(a, a_state, sizeof a);
  std::memcpy(b, b_state, sizeof b);
  const Words zero = {};
  for (std::size_t i = 0; i < blocks; ++i, from += 64) {
    for (int k = 0; k < 2; ++k) {
      Words words;
      std::memcpy(&words, from + 32 * k, sizeof words);
      if (to) std::memcpy(to + 32 * k, &words, sizeof words);
      a[k] += reinterpret_cast<Lanes>(__builtin_shufflevector(words, zero, 0, 8, 1, 9, 4, 12, 5, 13));
      b[k] += a[k];
      a[k] += reinterpret_cast<Lanes>(__builtin_shufflevector(words, zero, 2, 10, 3, 11, 6, 14, 7, 15));
      b[k] += a[k];
    }
    if (to) to += 64;
  }
  std::memcpy(a_state, a, sizeof a);
  std::memcpy(b_state, b, sizeof b);
}

}  // namespace

// Completes a partly filled last block from the front of the bytes (copying
// them on the way when `to` is not null).
void Checksum64::take_tail(const unsigned char*& from, unsigned char*& to, std::size_t& size) {
  if (tail_size_ == 0) return;
  const std::size_t take = std::min(size, sizeof tail_ - tail_size_);
  std::memcpy(tail_ + tail_size_, from, take);
  if (to) {
    std::memcpy(to, from, take);
    to += take;
  }
  from += take;
  size -= take;
  tail_size_ += take;
  if (tail_size_ == sizeof tail_) {
    add_blocks(a_, b_, tail_, nullptr, 1);
    tail_size_ = 0;
  }
}

void Checksum64::copy_and_add(void* to_bytes, const void* from_bytes, std::size_t size) {
  const auto* from = static_cast<const unsigned char*>(from_bytes);
  auto* to = static_cast<unsigned char*>(to_bytes);
  length_ += size;
  take_tail(from, to, size);
  if (size == 0) return;
  const std::size_t blocks = size / 64;
  add_blocks(a_, b_, from, to, blocks);
  from += 64 * blocks;
  size -= 64 * blocks;
  if (to) {
    to += 64 * blocks;
    std::memcpy(to, from, size);
  }
  std::memcpy(tail_, from, size);
  tail_size_ = size;
}

void Checksum64::add(const void* data, std::size_t size) { copy_and_add(nullptr, data, size); }

std::uint64_t Checksum64::value(std::uint64_t seed) const {
  std::uint64_t a[8], b[8];
  std::memcpy(a, a_, sizeof a);
  std::memcpy(b, b_, sizeof b);
  if (tail_size_ > 0) {
    // The tail, zero-padded; the length mixed in below tells padding from zeros.
    unsigned char last[64] = {};
    std::memcpy(last, tail_, tail_size_);
    add_blocks(a, b, last, nullptr, 1);
  }
  std::uint64_t h = mix(seed ^ (length_ * 0x9e3779b97f4a7c15ULL));
  for (int k = 0; k < 4; ++k) {
    h = mix(h ^ a[2 * k]) + a[2 * k + 1];
    h = mix(h ^ b[2 * k]) + b[2 * k + 1];
  }
  return mix(h);
}

std::uint64_t checksum64(const void* data, std::size_t size, std::uint64_t seed) {
  Checksum64 sums;
  sums.add(data, size);
  return sums.value(seed);
}

}  // namespace exsim::transport
