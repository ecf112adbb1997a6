// What Impala's memory tracker counts of one sender instance: the figure its
// profile prints as the sender's PeakMemoryUsage.
//
// The sender's tracker sees its strings only. Each batch's tuple data and the
// LZ4 scratch are TrackedStrings, std::basic_string with a MemTrackerAllocator
// (mem-tracker.h:589-636; outbound-row-batch.h:157); the tuple offsets are a
// plain vector<int32_t> (outbound-row-batch.h:154) that it does not count. So
// the figure is not the memory the process holds (SenderInstance::peak_bytes,
// which the suite checks against the real exchange): it is the strings' own
// allocations, replayed here batch by batch as Impala's code makes them.
//
// A string allocates its capacity and a terminating byte, nothing while its 15
// bytes fit in place (libstdc++'s small-string buffer), and grows as libstdc++'s
// does: asked to hold more than its capacity, to the larger of what is asked
// and twice the capacity (basic_string::_M_create), the new buffer allocated
// before the old one is freed, so that the tracker's peak sees both. It keeps
// its capacity when resized down, and strings change hands by swaps: the
// scratch with a compressed batch's tuple data (outbound-row-batch.cc:60-80),
// a sent batch with the channel's outbound one (krpc-data-stream-sender.cc:615).
// Impala's published profiles show each rule: TPC-DS q1's one-batch exchanges
// peak at their tuple data and one byte (2,900 B: 2,901), its exchanges of
// 1-row batches of 21-29 B at two strings of 30 (62 B), q72's broadcasts at
// three strings grown as LZ4's bound doubles them (docs/validation.md,
// "Against Impala's own profiles").
#ifndef EXSIM_MODELS_RULES_TRACKED_STRINGS_H_
#define EXSIM_MODELS_RULES_TRACKED_STRINGS_H_

#include <cstdint>
#include <vector>

#include "models/rules/sizing_policy.h"

namespace exsim {

class TrackedStrings {
 public:
  // A sender of `channels` channels, each keeping `outbound_per_channel`
  // outbound batches (one per RPC in flight), whose compressed batches shrink to
  // `lz4_ratio` of their tuple data (at 1 or above, LZ4's output is not kept).
  TrackedStrings(int channels, int outbound_per_channel, double lz4_ratio);

  // A hash sender's channel sends the batch its collector gathered: rows
  // appended one by one (outbound-row-batch.inline.h:52-70), the string resized
  // to what it holds, compressed or not (PrepareForSend), then swapped with the
  // channel's outbound batch, and the collector reset, keeping its string
  // (krpc-data-stream-sender.cc:637-647).
  void hash_batch(int channel, BatchSize batch, bool compress);
  // A whole input batch serialized into the sender's serialization batch and
  // sent to `channel`, with which it swaps (random, merge, a hash sender of one
  // channel, and a broadcast serialized per channel: Channel::SerializeAndSendBatch).
  void whole_batch(int channel, BatchSize batch, bool compress);
  // A broadcast serialized once for every channel, then swapped with the batch
  // the previous calls carried (krpc-data-stream-sender.cc:1150-1165).
  void broadcast_batch(BatchSize batch, bool compress);

  // The most the tracker has counted at once, in bytes.
  Bytes peak() const { return peak_; }

 private:
  // 32 bits hold any string Impala sends, a batch's being at most 2 GiB
  // (ROW_BATCH_TOO_LARGE); in 8 B a string, a sender of 1024 channels keeps 16
  // KiB of them. Larger values saturate.
  struct String {
    std::uint32_t capacity = kInPlace;
    std::uint32_t size = 0;
  };
  static constexpr std::uint32_t kInPlace = 15;  // libstdc++'s small-string capacity: no allocation

  // resize(n): grows the capacity as libstdc++ does when n exceeds it.
  void resize(String& s, Bytes n);
  // RowBatch::Serialize before IMPALA-14852: the tuple data resized to the
  // batch's size at once (row-batch.cc:228-257 before it; Impala's published profiles
  // show it). Since that change whole batches are appended tuple by tuple, as a
  // hash collector's rows are.
  void serialize(String& s, BatchSize batch) { resize(s, batch.tuple_bytes); }
  // AppendRow: each tuple that does not fit the string's size resizes it to
  // what it needs and then to its whole capacity (outbound-row-batch.inline.h).
  void append(String& s, BatchSize batch);
  // PrepareForSend's compression: the scratch resized to LZ4's bound when it is
  // smaller, then to the compressed size, and swapped with the batch's data.
  void compress(String& s, Bytes tuple_bytes);
  void swap_outbound(int channel, String& s);

  double lz4_ratio_;
  int outbound_per_channel_;
  // The strings by the batch that holds them; a swap trades two strings' values.
  // A channel's are together, its collector's (hash) then its outbound
  // batches': a batch sent touches one place.
  String& collector(int channel) { return strings_[static_cast<std::size_t>(channel) * stride()]; }
  std::size_t stride() const { return 1 + static_cast<std::size_t>(outbound_per_channel_); }
  std::vector<String> strings_;
  // Which outbound batch a channel's next send swaps with (at most 65 a channel).
  std::vector<std::uint8_t> next_outbound_;
  String serialization_, in_flight_, scratch_;
  Bytes held_ = 0, peak_ = 0;
};

}  // namespace exsim

#endif  // EXSIM_MODELS_RULES_TRACKED_STRINGS_H_
