#include "transport/wire/row_batch.h"

#include <cstring>

#include <fmt/format.h>

#include "transport/wire/checksum.h"
#include "transport/wire/lz4_codec.h"

namespace exsim::transport {
namespace {

template <typename T>
void put(char*& out, T value) {
  std::memcpy(out, &value, sizeof(T));
  out += sizeof(T);
}

template <typename T>
T get(const char*& in) {
  T value;
  std::memcpy(&value, in, sizeof(T));
  in += sizeof(T);
  return value;
}

}  // namespace

std::uint64_t RowBatch::checksum() const {
  const std::uint64_t sum = checksum64(offsets_.data(), offsets_.size() * 4);
  return checksum64(data_.data(), data_.size(), sum);
}

void RowBatchHeader::encode(char* out) const {
  put<std::uint32_t>(out, kMagic);
  put<std::uint16_t>(out, kVersion);
  put<std::uint8_t>(out, static_cast<std::uint8_t>(compression));
  put<std::uint8_t>(out, 0);
  put<std::uint32_t>(out, rows);
  put<std::uint32_t>(out, 0);
  put<std::uint64_t>(out, tuple_bytes);
  put<std::uint64_t>(out, payload_bytes);
  put<std::uint64_t>(out, checksum);
}

bool RowBatchHeader::decode(const char* in, std::uint64_t max_tuple_bytes, RowBatchHeader& h, std::string& error) {
  const auto magic = get<std::uint32_t>(in);
  const auto version = get<std::uint16_t>(in);
  const auto compression = get<std::uint8_t>(in);
  get<std::uint8_t>(in);
  h.rows = get<std::uint32_t>(in);
  get<std::uint32_t>(in);
  h.tuple_bytes = get<std::uint64_t>(in);
  h.payload_bytes = get<std::uint64_t>(in);
  h.checksum = get<std::uint64_t>(in);
  if (magic != kMagic) {
    error = fmt::format("not a row batch (magic {:#x})", magic);
  } else if (version != kVersion) {
    error = fmt::format("row batch version {} (this build reads {})", version, kVersion);
  } else if (compression > 1) {
    error = fmt::format("unknown compression {}", compression);
  } else if (h.tuple_bytes > max_tuple_bytes) {
    error = fmt::format("row batch of {} tuple bytes, over the limit of {}", h.tuple_bytes, max_tuple_bytes);
  } else if (compression == 0 && h.payload_bytes != h.tuple_bytes) {
    error = fmt::format("uncompressed payload of {} bytes for {} tuple bytes", h.payload_bytes, h.tuple_bytes);
  } else if (compression == 1 && (h.payload_bytes == 0 || h.payload_bytes >= h.tuple_bytes)) {
    error = fmt::format("LZ4 payload of {} bytes for {} tuple bytes", h.payload_bytes, h.tuple_bytes);
  } else {
    h.compression = static_cast<Compression>(compression);
    return true;
  }
  return false;
}

void encode_batch(RowBatch& batch, bool compress, Lz4Codec& codec, ByteBuffer& scratch, EncodedBatch& out) {
  RowBatchHeader& h = out.fields;
  h.rows = batch.rows();
  h.tuple_bytes = batch.tuple_bytes();
  h.checksum = batch.checksum();
  h.compression = Compression::kNone;
  h.payload_bytes = h.tuple_bytes;
  if (compress && batch.tuple_bytes() > 0) {
    const std::size_t bound = Lz4Codec::bound(batch.tuple_bytes());
    scratch.resize_uninitialized(bound);
    const std::size_t size = codec.compress(batch.data().data(), batch.tuple_bytes(), scratch.data(), bound);
    if (size > 0) {
      h.compression = Compression::kLz4;
      h.payload_bytes = size;
      scratch.resize_uninitialized(size);  // shrinking keeps the allocation
      std::swap(batch.mutable_data(), scratch);
    }
  }
  out.offsets = reinterpret_cast<const char*>(batch.offsets().data());
  out.payload = batch.data().data();
  h.encode(out.header);
}

bool decode_batch(const RowBatchHeader& header, const char* offsets, const char* payload, RowBatch& out,
                  std::string& error, std::int64_t (*cpu_clock)(), std::int64_t* lz4_ns) {
  out.clear();
  auto& off = out.mutable_offsets();
  off.resize(header.rows);
  if (header.rows > 0) std::memcpy(off.data(), offsets, 4ULL * header.rows);
  for (std::uint32_t i = 0; i < header.rows; ++i) {
    if (off[i] > header.tuple_bytes || (i > 0 && off[i] < off[i - 1])) {
      error = fmt::format("row {} starts at {}, outside the {} tuple bytes or before row {}", i, off[i],
                          header.tuple_bytes, i == 0 ? 0 : i - 1);
      return false;
    }
  }
  auto& data = out.mutable_data();
  data.resize_uninitialized(header.tuple_bytes);
  std::uint64_t sum = 0;
  if (header.compression == Compression::kLz4) {
    const std::int64_t start = cpu_clock ? cpu_clock() : 0;
    const bool decompressed = Lz4Codec::decompress(payload, header.payload_bytes, data.data(), header.tuple_bytes);
    if (cpu_clock && lz4_ns) *lz4_ns += cpu_clock() - start;
    if (!decompressed) {
      error = "LZ4 payload does not decompress to the announced size";
      return false;
    }
    sum = out.checksum();
  } else {
    // The payload summed as it is copied: one pass over it, not two.
    Checksum64 sums;
    sums.copy_and_add(data.data(), payload, header.tuple_bytes);
    sum = sums.value(checksum64(off.data(), 4ULL * header.rows));
  }
  if (sum != header.checksum) {
    error = fmt::format("checksum mismatch: batch says {:#x}, its bytes give {:#x}", header.checksum, sum);
    return false;
  }
  return true;
}

}  // namespace exsim::transport
