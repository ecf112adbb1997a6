// Sender buffer memory (docs/impala.md §§2.4-2.6 and 6.1). One set of rules
// serves both the simulator, which applies them to the largest batch each
// channel has actually held, and the static expected/worst-case figures, which
// apply them to full batches of mean or largest rows.
//
// Buffers keep their capacity after Reset (outbound-row-batch.cc:98-103) and grow
// by doubling, so a buffer's footprint follows the batches it has held;
// allocator rounding is not modelled.
#ifndef EXSIM_MODELS_RULES_SENDER_MEMORY_H_
#define EXSIM_MODELS_RULES_SENDER_MEMORY_H_

#include <cstdint>
#include <vector>

#include "models/rules/sizing_policy.h"
#include "models/scenario/scenario.h"

namespace exsim {

// LZ4_compressBound(n) = n + n/255 + 16.
inline Bytes lz4_bound(Bytes n) { return n + n / 255 + 16; }

// Whether batches to a channel are LZ4-compressed: never under "none", always
// under "lz4", and under "lz4_skip_local" unless the destination is in the
// sender's own process (docs/impala.md §4.3, IMPALA-12430).
bool channel_compresses(const Policy& policy, PartitionKind kind, int channels, bool local);

// Outbound batches each channel keeps: head keeps 1 per RPC in flight (the
// collector being filled is counted apart); v4.3 keeps NUM_OUTBOUND_BATCHES = 2
// (or one more than the RPCs in flight, when that is larger).
int outbound_buffers_per_channel(const Policy& policy);

// How buffers grow (docs/impala.md §1.6): asked to hold more than their
// capacity, std::string, std::vector and the real exchange's ByteBuffer take
// max(needed, 2 x capacity), and they keep it (§2.6). Filled row by row
// from empty, as every sender buffer is (rows appended by the hash collector,
// tuples deep-copied by Serialize), a buffer so ends at the first power of two
// at or above its largest content: from 256 B for tuple data, 1 for offsets.
// REQUIRES: start a power of two, bytes at most 2^62 (buffers are a few GiB at most).
Bytes appended_capacity(Bytes bytes, Bytes start = 256);

// How a static figure counts a buffer: by the room Impala's doubling growth
// leaves it (docs/impala.md §1.6), as it is allocated; or by the batch it is sized for,
// as §2.6's formula and the IMPALA-15512 ticket's modelled figures count
// it: the batch's bytes, or the LZ4 bound of its data where compression keeps
// its output (the buffers pass through the scratch), without the doubling. The
// two differ by up to 2x: a batch just past a power of two takes twice its room.
enum class BufferCount { kRoom, kHeld };

// Room of one batch buffer: tuple data and row offsets (4 B each); and the room
// of the batch's uncompressed tuple data alone, as a v4.3 RowBatch holds it.
struct BufferRoom {
  Bytes data = 0;
  std::int64_t rows = 0;
  Bytes tuple = 0;
  Bytes bytes() const { return data + 4 * rows; }
};

// The room of a buffer after it held `batch`. When LZ4's output is kept (it is
// smaller: the exchange's lz4_ratio below 1), the batch's buffer takes the LZ4
// scratch's room, LZ4_compressBound of its data, since compression swaps the two
// (outbound-row-batch.cc:76-82) and buffers pass through the scratch; when it is
// not, the buffer keeps its own room and only the scratch grows.
BufferRoom room_after(BufferRoom before, BatchSize batch, bool swapped, BufferCount count = BufferCount::kRoom);

// The sender's one LZ4 scratch at HEAD after it compressed `batch`. Empty, it is
// resized to the first batch's LZ4 bound, and a string grown from empty takes
// exactly what is asked (outbound-row-batch.cc:62-64): a size no doubling
// gives. Each compression then trades the scratch's buffer for the batch's, so
// that this one buffer passes among the channels' buffers, and a later batch
// larger than it makes it grow as they do, to twice its size; the scratch slot
// itself soon holds a channel's buffer, which the channels' room counts. What
// this returns is that odd buffer: one of the sender's buffers, not a power of
// two (the real exchange's sender at 16K, rows of 40 B: 54,986 B where its
// other buffers had 32 KiB).
Bytes lz4_scratch_after(Bytes scratch, BatchSize batch);

// Whether LZ4's output is kept for this exchange's batches (they compress at all).
bool lz4_output_kept(const Exchange& exchange);

// Bytes held by one channel whose buffers have `room` each, with `outbound_used`
// outbound buffers allocated so far (at most outbound_buffers_per_channel).
// Broadcast `once` keeps no per-channel buffer. At HEAD a hash channel's
// collector trades places with an outbound buffer on every send, so a send on
// a buffer never used before leaves the collector that empty buffer: with
// `collector_empty`, the collector has held no row since, and holds nothing
// (the real exchange's channel after its last batch left on a fresh buffer).
Bytes channel_buffer_bytes(const Policy& policy, PartitionKind kind, BufferRoom room, bool compressed,
                           int outbound_used, bool collector_empty = false);

// Bytes the sender shares across its channels: serialization batches of room
// `serialization` and the compression scratch of `scratch` bytes.
Bytes shared_buffer_bytes(const Policy& policy, PartitionKind kind, BufferRoom serialization, Bytes scratch);

// Under a table of sender memory: what its figures count, so that a figure
// above channels x buffers x batch is read as the model's, not as an error.
inline constexpr const char* kMemoryColumnsNote =
    "memory: each buffer at the room its batches grow it to (a power of two at or above the batch), offsets "
    "and LZ4 scratch included (docs/simulator.md, Memory)";

// Static model of one sender instance with every buffer of every channel full
// of rows of `row_bytes` each. `local_channels` of `channels` go to the sender's
// own process (uncompressed under lz4_skip_local).
Bytes sender_static_bytes(const Policy& policy, const Exchange& exchange, int channels, int local_channels,
                          double row_bytes, BufferCount count = BufferCount::kRoom);

// Static sender memory of each host: the largest, over the scenario's queries,
// of the sum over the query's exchanges of their sender instances on the host
// (all of a query's fragments hold their buffers at once). Rows of mean size
// give the expected figure; rows of the largest size, the worst case.
std::vector<Bytes> static_sender_bytes_per_host(const Scenario& scenario, const Policy& policy, bool worst_case,
                                                BufferCount count = BufferCount::kRoom);

// The four static figures of one host, as results report them.
struct StaticSenderBytes {
  Bytes expected = 0, worst = 0;            // rooms (BufferCount::kRoom)
  Bytes expected_held = 0, worst_held = 0;  // batches held (BufferCount::kHeld)
};
std::vector<StaticSenderBytes> static_sender_memory(const Scenario& scenario, const Policy& policy);

// The planner's per-instance estimate (DataStreamSink.java:92-117):
// channels x 2 batches x 2 (tuple data + scratch) x min(1024 x (avg row + 4), 8 MiB),
// channels = receiver instances for a partitioned (hash, random) sender, else 1.
Bytes planner_sender_estimate(const Exchange& exchange);

}  // namespace exsim

#endif  // EXSIM_MODELS_RULES_SENDER_MEMORY_H_
