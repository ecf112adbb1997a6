#include "models/rules/tracked_strings.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <utility>

#include "models/rules/sender_memory.h"

namespace exsim {
namespace {

// What the allocator is asked for, and the tracker counts: the capacity and a
// terminating byte, once the string no longer fits in place.
Bytes allocated(Bytes capacity, Bytes in_place) { return capacity > in_place ? capacity + 1 : 0; }

std::uint32_t narrow(Bytes n) { return static_cast<std::uint32_t>(std::clamp<Bytes>(n, 0, UINT32_MAX)); }

}  // namespace

TrackedStrings::TrackedStrings(int channels, int outbound_per_channel, double lz4_ratio)
    : lz4_ratio_(lz4_ratio), outbound_per_channel_(std::max(1, outbound_per_channel)) {
  const auto n = static_cast<std::size_t>(std::max(0, channels));
  strings_.resize(n * stride());
  if (outbound_per_channel_ > 1) next_outbound_.assign(n, 0);  // one outbound batch: nothing to choose
}

void TrackedStrings::resize(String& s, Bytes n) {
  const Bytes capacity = s.capacity;
  if (n > capacity) {
    const std::uint32_t grown = narrow(std::max(n, 2 * capacity));
    // The new buffer is allocated, the bytes copied, then the old one freed.
    held_ += allocated(grown, kInPlace);
    peak_ = std::max(peak_, held_);
    held_ -= allocated(capacity, kInPlace);
    s.capacity = grown;
  }
  s.size = narrow(n);
}

void TrackedStrings::append(String& s, BatchSize batch) {
  if (batch.rows <= 0 || batch.tuple_bytes <= 0) return;
  if (batch.tuple_bytes <= s.capacity) {
    // Every row it asks for is within its room: no growth, whatever its size.
    s.size = narrow(batch.tuple_bytes);
    return;
  }
  // Rows of the batch's mean size, in whole bytes: the rows that fit in
  // `bytes`, and the bytes of the first `rows` rows (at most a batch's rows
  // times its bytes, some 2^43: no overflow).
  const auto fitting = [&](Bytes bytes) { return bytes * batch.rows / batch.tuple_bytes; };
  const auto bytes_of = [&](std::int64_t rows) { return (rows * batch.tuple_bytes + batch.rows - 1) / batch.rows; };
  // A reused string is appended to up to its size (what it last held), then,
  // once resized, up to its capacity. The row that does not fit asks for the
  // bytes before it and its own, which is more than the string's size.
  for (std::int64_t fit = fitting(s.size); fit < batch.rows; fit = fitting(s.capacity)) {
    resize(s, std::max(bytes_of(fit + 1), Bytes{s.size} + 1));
    resize(s, s.capacity);
  }
  resize(s, batch.tuple_bytes);  // PrepareForSend: down to the bytes appended
}

void TrackedStrings::compress(String& s, Bytes tuple_bytes) {
  if (tuple_bytes <= 0) return;
  const Bytes bound = lz4_bound(tuple_bytes);
  if (scratch_.size < bound) resize(scratch_, bound);
  const auto compressed = static_cast<Bytes>(std::ceil(lz4_ratio_ * static_cast<double>(tuple_bytes)));
  if (compressed >= tuple_bytes) return;  // kept uncompressed: no swap
  resize(scratch_, compressed);
  std::swap(s, scratch_);
}

void TrackedStrings::swap_outbound(int channel, String& s) {
  String* outbound = &collector(channel) + 1;
  if (outbound_per_channel_ == 1) {
    std::swap(s, *outbound);
    return;
  }
  std::uint8_t& next = next_outbound_[static_cast<std::size_t>(channel)];
  std::swap(s, outbound[next]);
  next = static_cast<std::uint8_t>(next + 1 == outbound_per_channel_ ? 0 : next + 1);
}

void TrackedStrings::hash_batch(int channel, BatchSize batch, bool compress_it) {
  if (batch.rows <= 0) return;
  String& s = collector(channel);
  append(s, batch);
  if (compress_it) compress(s, batch.tuple_bytes);
  swap_outbound(channel, s);
}

void TrackedStrings::whole_batch(int channel, BatchSize batch, bool compress_it) {
  if (batch.rows <= 0) return;
  serialize(serialization_, batch);
  if (compress_it) compress(serialization_, batch.tuple_bytes);
  swap_outbound(channel, serialization_);
}

void TrackedStrings::broadcast_batch(BatchSize batch, bool compress_it) {
  if (batch.rows <= 0) return;
  serialize(serialization_, batch);
  if (compress_it) compress(serialization_, batch.tuple_bytes);
  std::swap(serialization_, in_flight_);
}

}  // namespace exsim
