// A batch of rows as the transport builds, sends and receives it, and its wire
// form (docs/wire-format.md): a 40-byte header, 4-byte tuple offsets, then the
// tuple data, LZ4-compressed when that made it smaller. Little-endian hosts.
#ifndef EXSIM_TRANSPORT_WIRE_ROW_BATCH_H_
#define EXSIM_TRANSPORT_WIRE_ROW_BATCH_H_

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "transport/wire/byte_buffer.h"

namespace exsim::transport {

class Lz4Codec;

// Rows as contiguous tuple data plus the offset where each row starts. Clearing
// keeps the capacity, so a reused batch stops allocating once it has grown.
class RowBatch {
 public:
  void clear() {
    offsets_.clear();
    data_.clear();
  }
  // Adds a row of `bytes` bytes and returns where to write them.
  char* append_row(std::size_t bytes) {
    offsets_.push_back(static_cast<std::uint32_t>(data_.size()));
    return data_.append(bytes);
  }
  std::uint32_t rows() const { return static_cast<std::uint32_t>(offsets_.size()); }
  std::size_t tuple_bytes() const { return data_.size(); }
  const std::vector<std::uint32_t>& offsets() const { return offsets_; }
  const ByteBuffer& data() const { return data_; }
  std::vector<std::uint32_t>& mutable_offsets() { return offsets_; }
  ByteBuffer& mutable_data() { return data_; }
  // Replaces the rows with a deep copy of `from`'s, row by row, as Impala's
  // RowBatch::Serialize copies tuples (row-batch-ir.cc): the serialization work
  // of whole-batch senders.
  void copy_rows_from(const RowBatch& from) {
    clear();
    const std::uint32_t n = from.rows();
    for (std::uint32_t r = 0; r < n; ++r) {
      const std::uint32_t start = from.offsets_[r];
      const std::uint32_t end = r + 1 < n ? from.offsets_[r + 1] : static_cast<std::uint32_t>(from.data_.size());
      std::memcpy(append_row(end - start), from.data_.data() + start, end - start);
    }
  }

  // Bytes of memory the batch holds (capacities), for buffer accounting.
  std::size_t footprint() const { return offsets_.capacity() * 4 + data_.capacity(); }
  // Checksum of the offsets and the uncompressed tuple data.
  std::uint64_t checksum() const;

 private:
  std::vector<std::uint32_t> offsets_;
  ByteBuffer data_;
};

enum class Compression : std::uint8_t { kNone = 0, kLz4 = 1 };

struct RowBatchHeader {
  static constexpr std::size_t kSize = 40;
  static constexpr std::uint32_t kMagic = 0x42525845;  // "EXRB"
  static constexpr std::uint16_t kVersion = 2;  // 2: the Fletcher-style checksum

  std::uint32_t rows = 0;
  Compression compression = Compression::kNone;
  std::uint64_t tuple_bytes = 0;    // uncompressed
  std::uint64_t payload_bytes = 0;  // on the wire after the offsets
  std::uint64_t checksum = 0;

  // Bytes of the whole wire form: header, offsets, payload.
  std::uint64_t wire_bytes() const { return kSize + 4ULL * rows + payload_bytes; }
  void encode(char* out) const;
  // Parses and checks a header against `max_tuple_bytes`; false with `error` set.
  static bool decode(const char* in, std::uint64_t max_tuple_bytes, RowBatchHeader& header, std::string& error);
};

// A batch ready to send: the three pieces of a gather write, pointing into the
// batch, which must outlive the write.
struct EncodedBatch {
  char header[RowBatchHeader::kSize];
  RowBatchHeader fields;
  const char* offsets = nullptr;
  const char* payload = nullptr;
};

// Encodes `batch`; with `compress`, LZ4 into `scratch` (grown to the bound when
// needed), kept only if smaller. A kept result is swapped into the batch, as
// Impala's OutboundRowBatch swaps its tuple data with the shared compression
// scratch (outbound-row-batch.cc:76-81): the batch then holds the compressed
// payload (out.fields keeps the uncompressed size) and the scratch the old
// buffer, so one scratch serves every channel of a sender.
void encode_batch(RowBatch& batch, bool compress, Lz4Codec& codec, ByteBuffer& scratch, EncodedBatch& out);

// Rebuilds a batch from its wire pieces, checking offsets, sizes and checksum.
// `offsets` holds 4 x header.rows bytes, `payload` header.payload_bytes. With
// `cpu_clock` and `lz4_ns`, the LZ4 step's CPU is added to *lz4_ns, so callers
// can tell decompression from deserialization.
bool decode_batch(const RowBatchHeader& header, const char* offsets, const char* payload, RowBatch& out,
                  std::string& error, std::int64_t (*cpu_clock)() = nullptr, std::int64_t* lz4_ns = nullptr);

}  // namespace exsim::transport

#endif  // EXSIM_TRANSPORT_WIRE_ROW_BATCH_H_
