#include "transport/wire/lz4_codec.h"

#include <algorithm>
#include <limits>

#include <lz4.h>

namespace exsim::transport {

Lz4Codec::Lz4Codec() : state_(static_cast<std::size_t>(LZ4_sizeofState())) {}

std::size_t Lz4Codec::bound(std::size_t bytes) {
  return static_cast<std::size_t>(LZ4_compressBound(static_cast<int>(bytes)));
}

std::size_t Lz4Codec::compress(const char* in, std::size_t size, char* out, std::size_t capacity) {
  if (size == 0 || size > static_cast<std::size_t>(LZ4_MAX_INPUT_SIZE)) return 0;
  // Compress in full into a bound-sized buffer, then compare, as Impala does: the
  // CPU is spent even when the result is thrown away (docs/impala.md §4.2).
  const int cap = static_cast<int>(std::min<std::size_t>(capacity, std::numeric_limits<int>::max()));
  const int written = LZ4_compress_fast_extState(state_.data(), in, out, static_cast<int>(size), cap,
                                                 /*acceleration=*/1);
  if (written <= 0 || static_cast<std::size_t>(written) >= size) return 0;
  return static_cast<std::size_t>(written);
}

bool Lz4Codec::decompress(const char* in, std::size_t size, char* out, std::size_t expected) {
  if (size > static_cast<std::size_t>(std::numeric_limits<int>::max()) ||
      expected > static_cast<std::size_t>(std::numeric_limits<int>::max())) {
    return false;
  }
  const int got = LZ4_decompress_safe(in, out, static_cast<int>(size), static_cast<int>(expected));
  return got >= 0 && static_cast<std::size_t>(got) == expected;
}

}  // namespace exsim::transport
