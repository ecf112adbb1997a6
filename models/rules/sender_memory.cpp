#include "models/rules/sender_memory.h"

#include <algorithm>
#include <bit>
#include <cmath>

namespace exsim {
namespace {

bool whole_batch_kind(PartitionKind kind) { return kind != PartitionKind::kHash; }

}  // namespace

bool channel_compresses(const Policy& policy, PartitionKind kind, int channels, bool local) {
  switch (policy.compression) {
    case Compression::kNone:
      return false;
    case Compression::kLz4:
      return true;
    case Compression::kLz4SkipLocal:
      // A broadcast serializes once for all channels, so it skips LZ4 only when its
      // one channel is local (krpc-data-stream-sender.cc:1150-1153).
      return kind == PartitionKind::kBroadcast ? !(channels == 1 && local) : !local;
  }
  return true;
}

int outbound_buffers_per_channel(const Policy& policy) {
  return policy.sender_layout == SenderLayout::kHead ? policy.in_flight : std::max(2, policy.in_flight + 1);
}

Bytes appended_capacity(Bytes bytes, Bytes start) {
  if (bytes <= 0) return 0;
  // The smallest start x 2^k >= bytes: start being a power of two, the larger
  // of start and the power of two at or above bytes.
  return std::max(start, static_cast<Bytes>(std::bit_ceil(static_cast<std::uint64_t>(bytes))));
}

BufferRoom room_after(BufferRoom before, BatchSize batch, bool swapped, BufferCount count) {
  if (batch.rows == 0) return before;
  const Bytes data = swapped ? lz4_bound(batch.tuple_bytes) : batch.tuple_bytes;
  const auto grown = [count](Bytes bytes, Bytes start) {
    return count == BufferCount::kRoom ? appended_capacity(bytes, start) : bytes;
  };
  return {std::max(before.data, grown(data, 256)), std::max(before.rows, grown(batch.rows, 1)),
          std::max(before.tuple, grown(batch.tuple_bytes, 256))};
}

Bytes lz4_scratch_after(Bytes scratch, BatchSize batch) {
  if (batch.rows == 0) return scratch;
  if (scratch == 0) return lz4_bound(batch.tuple_bytes);
  if (batch.tuple_bytes > scratch) return std::max(lz4_bound(batch.tuple_bytes), 2 * scratch);
  return scratch;
}

bool lz4_output_kept(const Exchange& exchange) { return exchange.lz4_ratio < 1.0; }

Bytes channel_buffer_bytes(const Policy& policy, PartitionKind kind, BufferRoom room, bool compressed,
                           int outbound_used, bool collector_empty) {
  if (room.rows == 0) return 0;
  if (kind == PartitionKind::kBroadcast && policy.broadcast_serialize == BroadcastSerialize::kOnce) return 0;
  if (policy.sender_layout == SenderLayout::kHead) {
    // Hash: the collector being filled plus the outbound buffers (docs/impala.md §2.4),
    // which trade places on every send, so all that held rows have the same room.
    const Bytes filling = whole_batch_kind(kind) || collector_empty ? 0 : room.bytes();
    return filling + outbound_used * room.bytes();
  }
  // v4.3 (docs/impala.md §2.5): outbound batches with their own scratch; hash adds a RowBatch
  // (uncompressed tuple data plus an 8 B pointer per tuple) deep-copied at AddRow.
  const Bytes row_batch = whole_batch_kind(kind) ? 0 : room.tuple + 8 * room.rows;
  const Bytes scratch = compressed ? room.data : 0;
  return row_batch + outbound_used * (room.bytes() + scratch);
}

Bytes shared_buffer_bytes(const Policy& policy, PartitionKind kind, BufferRoom serialization, Bytes scratch) {
  if (policy.sender_layout == SenderLayout::kV43) {
    // v4.3 broadcast serialized into 2 sender-level batches, each with its scratch.
    if (kind == PartitionKind::kBroadcast && policy.broadcast_serialize == BroadcastSerialize::kOnce) {
      return outbound_buffers_per_channel(policy) * (serialization.bytes() + scratch);
    }
    return 0;
  }
  switch (kind) {
    case PartitionKind::kHash:
      return scratch;  // compression_scratch_ only; rows go straight into collectors
    case PartitionKind::kBroadcast:
      if (policy.broadcast_serialize == BroadcastSerialize::kOnce) {
        // serialization_batch_ plus one in-flight batch per RPC in flight, shared by all channels.
        return (1 + policy.in_flight) * serialization.bytes() + scratch;
      }
      // per_channel: serialized for each channel into serialization_batch_, as random.
      return serialization.bytes() + scratch;
    case PartitionKind::kRandom:
    case PartitionKind::kMerge:
      // serialization_batch_, compressed, then swapped into the channel's outbound buffer.
      return serialization.bytes() + scratch;
  }
  return 0;
}

Bytes sender_static_bytes(const Policy& policy, const Exchange& exchange, int channels, int local_channels,
                          double row_bytes, BufferCount count) {
  const PartitionKind path = exchange.send_path();
  const bool hash = path == PartitionKind::kHash;
  BatchSize batch = hash ? full_channel_batch(channel_capacity(policy, exchange.row, channels), row_bytes)
                         : full_input_batch(row_bytes, exchange.input_batch_rows);
  const bool compress_remote = channel_compresses(policy, exchange.kind, channels, /*local=*/false);
  const bool compress_local = channel_compresses(policy, exchange.kind, channels, /*local=*/true);
  const bool kept = lz4_output_kept(exchange);
  const int outbound = outbound_buffers_per_channel(policy);
  Bytes total = 0;
  total += static_cast<Bytes>(channels - local_channels) *
           channel_buffer_bytes(policy, path, room_after({}, batch, compress_remote && kept, count),
                                compress_remote, outbound);
  total += static_cast<Bytes>(local_channels) *
           channel_buffer_bytes(policy, path, room_after({}, batch, compress_local && kept, count),
                                compress_local, outbound);
  const bool any_compressed = (compress_remote && channels > local_channels) || (compress_local && local_channels > 0);
  const Bytes scratch = any_compressed ? room_after({}, batch, true, count).data : 0;
  total += shared_buffer_bytes(policy, path, room_after({}, batch, any_compressed && kept, count), scratch);
  return total;
}

std::vector<Bytes> static_sender_bytes_per_host(const Scenario& scenario, const Policy& policy, bool worst_case,
                                                BufferCount count) {
  const auto hosts = scenario.cluster.hosts.size();
  std::vector<Bytes> result(hosts, 0);
  for (const Query& query : scenario.queries) {
    std::vector<Bytes> sum(hosts, 0);
    for (const Exchange& x : query.exchanges) {
      const int channels = x.receivers.instances();
      const auto fixed = static_cast<double>(x.row.fixed_bytes);
      for (int h : x.senders.hosts) {
        const auto receivers_here = std::count(x.receivers.hosts.begin(), x.receivers.hosts.end(), h);
        const int local = static_cast<int>(receivers_here) * x.receivers.per_host;
        // Fixed-length capacity overshoots most with the largest rows; a byte target
        // holds the most rows (offsets) with the smallest: the worst case takes both.
        Bytes bytes = sender_static_bytes(policy, x, channels, local,
                                          fixed + (worst_case ? x.row.varlen.max() : x.row.varlen.mean()), count);
        if (worst_case) {
          bytes = std::max(bytes, sender_static_bytes(policy, x, channels, local, fixed + x.row.varlen.min(), count));
        }
        sum[h] += x.senders.per_host * bytes;
      }
    }
    for (std::size_t h = 0; h < hosts; ++h) result[h] = std::max(result[h], sum[h]);
  }
  return result;
}

std::vector<StaticSenderBytes> static_sender_memory(const Scenario& scenario, const Policy& policy) {
  const auto expected = static_sender_bytes_per_host(scenario, policy, false);
  const auto worst = static_sender_bytes_per_host(scenario, policy, true);
  const auto expected_held = static_sender_bytes_per_host(scenario, policy, false, BufferCount::kHeld);
  const auto worst_held = static_sender_bytes_per_host(scenario, policy, true, BufferCount::kHeld);
  std::vector<StaticSenderBytes> hosts(expected.size());
  for (std::size_t h = 0; h < hosts.size(); ++h) hosts[h] = {expected[h], worst[h], expected_held[h], worst_held[h]};
  return hosts;
}

Bytes planner_sender_estimate(const Exchange& exchange) {
  // DataPartition.isPartitioned(): everything but UNPARTITIONED (broadcast, merge), so RANDOM too.
  const bool partitioned = exchange.kind == PartitionKind::kHash || exchange.kind == PartitionKind::kRandom;
  const int channels = partitioned ? exchange.receivers.instances() : 1;
  const double avg_row = static_cast<double>(exchange.row.fixed_bytes) + exchange.row.varlen.mean();
  const Bytes batch = std::min<Bytes>(static_cast<Bytes>(std::ceil(static_cast<double>(kInputBatchRows) * (avg_row + 4))),
                                      kBatchHardCap);
  return static_cast<Bytes>(channels) * 2 * 2 * batch;
}

}  // namespace exsim
