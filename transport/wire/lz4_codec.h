// LZ4 block compression of tuple data, as Impala's Lz4Compressor at level 1
// (docs/impala.md §4.1). The compression state is allocated once and reused,
// so compressing a batch allocates nothing. One codec per thread.
#ifndef EXSIM_TRANSPORT_WIRE_LZ4_CODEC_H_
#define EXSIM_TRANSPORT_WIRE_LZ4_CODEC_H_

#include <cstddef>
#include <vector>

namespace exsim::transport {

class Lz4Codec {
 public:
  Lz4Codec();
  Lz4Codec(const Lz4Codec&) = delete;
  Lz4Codec& operator=(const Lz4Codec&) = delete;

  // LZ4_compressBound(n): the output capacity that guarantees success.
  static std::size_t bound(std::size_t bytes);

  // Compresses `size` bytes into `out`, whose capacity should be bound(size).
  // Returns the compressed size, or 0 when it is not strictly smaller than the
  // input (or did not fit): the caller then sends the data uncompressed (docs/impala.md §4.2).
  std::size_t compress(const char* in, std::size_t size, char* out, std::size_t capacity);

  // Decompresses into exactly `expected` bytes. Returns false on malformed input
  // or a size mismatch; never writes past `out + expected`.
  static bool decompress(const char* in, std::size_t size, char* out, std::size_t expected);

 private:
  std::vector<char> state_;
};

}  // namespace exsim::transport

#endif  // EXSIM_TRANSPORT_WIRE_LZ4_CODEC_H_
