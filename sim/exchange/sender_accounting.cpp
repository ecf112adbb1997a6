// A sender instance's bookkeeping beside its thread's steps: the memory its
// buffers hold over time, and its spans in a trace.
#include <algorithm>

#include <fmt/format.h>

#include "models/rules/sender_memory.h"
#include "sim/exchange/exchange_run.h"
#include "sim/exchange/model_context.h"
#include "sim/exchange/sender.h"

namespace exsim::sim {

// Memory: a channel's buffers grow with the batches they hold and keep their
// room (models/rules/sender_memory.h); its outbound buffers are allocated as RPCs
// first go in flight together. Room only grows with a batch larger than any
// before (room_after is monotonic): note_batch has returned for the others.
void SenderInstance::note_new_batch(Channel& ch, BatchSize batch, int outbound, bool counted) {
  const PartitionKind path = run_.exchange().send_path();
  ch.largest = {std::max(ch.largest.rows, batch.rows), std::max(ch.largest.tuple_bytes, batch.tuple_bytes)};
  const BufferRoom room = room_after(ch.room, batch, ch.compress && lz4_output_kept(run_.exchange()));
  const bool grew = room.data != ch.room.data || room.rows != ch.room.rows || room.tuple != ch.room.tuple;
  if (!grew && counted) return;
  // Its buffers' bytes follow from their room (not kept: millions of channels at scale).
  const Bytes before =
      channel_buffer_bytes(context_.policy, path, ch.room, ch.compress, ch.outbound_counted, ch.collector_empty_counted);
  ch.room = room;
  ch.outbound_counted = static_cast<std::uint8_t>(outbound);
  ch.collector_empty_counted = ch.collector_empty;
  const Bytes now = channel_buffer_bytes(context_.policy, path, ch.room, ch.compress, outbound, ch.collector_empty);
  ch.holds = now != 0;
  add_footprint(now - before);
}

// The shared buffers, which the compressed batches pass through, past
// note_shared's common case.
void SenderInstance::note_shared_growth(BatchSize batch, bool serialized, bool compressed) {
  const PartitionKind kind = run_.exchange().send_path();
  if (serialized) {
    // Batches are compressed in the serialization batch (swapping in the
    // scratch) before they go to a channel or, for broadcast `once`, to all.
    serialization_room_ = room_after(serialization_room_, batch, compressed && lz4_output_kept(run_.exchange()));
  }
  if (compressed) {
    // v4.3: a scratch per outbound batch, in the channels' room; HEAD: the one
    // scratch, whose first size no doubling gives (lz4_scratch_after).
    scratch_bytes_ = context_.policy.sender_layout == SenderLayout::kV43
                         ? room_after({scratch_bytes_, 0, 0}, batch, /*swapped=*/true).data
                         : lz4_scratch_after(scratch_bytes_, batch);
  }
  const Bytes now = shared_buffer_bytes(context_.policy, kind, serialization_room_, scratch_bytes_);
  add_footprint(now - shared_footprint_);
  shared_footprint_ = now;
}

void SenderInstance::note_tracked(int channel, BatchSize batch) {
  if (!tracked_) return;
  const bool compress = channels_[static_cast<std::size_t>(channel)].compress;
  switch (run_.exchange().send_path()) {
    case PartitionKind::kHash:
      tracked_->hash_batch(channel, batch, compress);
      return;
    case PartitionKind::kBroadcast:
      if (context_.policy.broadcast_serialize == BroadcastSerialize::kOnce) {
        // Serialized once, before its first channel's call; its other calls carry the same bytes.
        if (channel == order_[0]) tracked_->broadcast_batch(batch, compress);
        return;
      }
      break;
    case PartitionKind::kRandom:
    case PartitionKind::kMerge:
      break;
  }
  tracked_->whole_batch(channel, batch, compress);
}

void SenderInstance::add_footprint(Bytes delta) {
  if (delta == 0) return;
  footprint_ += delta;
  peak_bytes_ = std::max(peak_bytes_, footprint_);
  fresh_bytes_ += context_.memory.add_sender(host_, delta);
}

void SenderInstance::trace_cpu(const Step& step, SimTime start, SimTime end) {
  // The step ran from `start` (when it had a core; waiting for one is not
  // traced) to `end`, which is `work` later unless it ran in slices and waited
  // between them: each part gets its share of that time.
  const double scale = static_cast<double>(end - start) / static_cast<double>(step.work);
  const SimTime rows_end = start + to_ns(static_cast<double>(step.work - step.compress - step.call) * scale);
  const SimTime compress_end = rows_end + to_ns(static_cast<double>(step.compress) * scale);
  const int pid = context_.trace_pid(host_);
  if (rows_end > start) context_.trace->span(pid, trace_tid_, "serialize", start, rows_end);
  if (compress_end > rows_end) context_.trace->span(pid, trace_tid_, "compress", rows_end, compress_end);
  if (end > compress_end) context_.trace->span(pid, trace_tid_, "send", compress_end, end);
}

int SenderInstance::channel_track(int channel) {
  int& tid = channel_tids_[static_cast<std::size_t>(channel)];
  if (tid == 0) {
    const Channel& ch = channels_[static_cast<std::size_t>(channel)];
    tid = context_.trace_track(host_, fmt::format("{} sender {} channel {} to {}", run_.exchange().id, index_, channel,
                                                  context_.scenario.cluster.hosts[static_cast<std::size_t>(ch.host)].name));
  }
  return tid;
}

Bytes SenderInstance::buffer_rooms() const {
  Bytes rooms = serialization_room_.data + serialization_room_.rows + serialization_room_.tuple + scratch_bytes_;
  for (const Channel& ch : channels_) rooms += ch.room.data + ch.room.rows + ch.room.tuple;
  return rooms;
}

int SenderInstance::outbound_buffers() const {
  int buffers = 0;
  for (const Channel& ch : channels_) buffers += ch.outbound_used;
  return buffers;
}

}  // namespace exsim::sim
