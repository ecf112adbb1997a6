// models/rules: sizing, the memory model, compression, partitioning, the receiver
// queue and the in-flight window, each derived by hand.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "models/base/random.h"
#include "models/base/size.h"
#include "models/rules/in_flight_window.h"
#include "models/rules/partitioning.h"
#include "models/rules/policy_notes.h"
#include "models/rules/receiver_queue.h"
#include "models/rules/sender_memory.h"
#include "models/rules/sizing_policy.h"
#include "tests/test_util.h"

namespace exsim {
namespace {

TEST_CASE("a broadcast order is a permutation, the same for a seed, different across senders") {
  std::vector<std::vector<int>> orders;
  for (std::uint64_t seed = 1; seed <= 8; ++seed) {
    Random random(seed), again(seed);
    const std::vector<int> order = broadcast_order(40, random);
    CHECK(order == broadcast_order(40, again));
    std::vector<int> sorted = order;
    std::sort(sorted.begin(), sorted.end());
    for (int c = 0; c < 40; ++c) CHECK(sorted[c] == c);
    orders.push_back(order);
  }
  // Eight senders do not all start at one channel (the thundering herd the shuffle avoids).
  std::set<int> first;
  for (const auto& order : orders) first.insert(order.front());
  CHECK(first.size() >= 4);
  Random random(3);
  CHECK(broadcast_order(1, random) == std::vector<int>{0});
}

TEST_CASE("channel targets: flat, and a budget clamped to [min, max]") {
  BufferSizing flat;
  flat.flat = 64 * kKiB;
  CHECK(channel_target(flat, 40) == 64 * kKiB);
  BufferSizing budget;
  budget.kind = BufferSizing::Kind::kBudget;
  budget.budget = 4 * kMiB;
  budget.min = 16 * kKiB;
  budget.max = 256 * kKiB;
  CHECK(channel_target(budget, 5) == 256 * kKiB);    // 4M / 10 = 409.6K, clamped to max
  CHECK(channel_target(budget, 40) == 52428);        // 4M / 80
  CHECK(channel_target(budget, 400) == 16 * kKiB);   // 5242 B, clamped to min
  // Flushed by bytes, but never before today's rows (16K / 21 B fixed = 780):
  // with 100-byte strings, 16K of bytes is 136 rows; the batch goes on to 780.
  Policy policy;
  policy.buffer = budget;
  policy.capacity = CapacityRule::kBytes;
  const BatchCapacity cap = channel_capacity(policy, RowShape{21, VarLenDistribution::fixed(100)}, 400);
  CHECK(cap.least_rows == 780);
  CHECK_FALSE(cap.full(136, 136 * 121));
  CHECK_FALSE(cap.full(779, 779 * 121));
  CHECK(cap.full(780, 780 * 121));
  CHECK(full_channel_batch(cap, 121).rows == 780);
  // A flat buffer flushed by bytes has no floor.
  policy.buffer = BufferSizing{};
  policy.buffer.flat = 16 * kKiB;
  CHECK(channel_capacity(policy, RowShape{21, VarLenDistribution::fixed(100)}, 400).least_rows == 1);
}

TEST_CASE("fixed_len capacity ignores var-len bytes, so batches overshoot") {
  // Section 1.3's example: BIGINT + STRING, R_fix = 21 B: 16384 / 21 = 780 rows;
  // with 100-byte strings a batch is 780 x 121 = 94380 B, 5.8x the target.
  Policy policy;
  RowShape row{21, VarLenDistribution::fixed(100)};
  BatchCapacity cap = channel_capacity(policy, row, 5);
  CHECK(cap.rows == 780);
  BatchSize full = full_channel_batch(cap, 121);
  CHECK(full.rows == 780);
  CHECK(full.tuple_bytes == 94380);
  policy.capacity = CapacityRule::kBytes;
  BatchSize by_bytes = full_channel_batch(channel_capacity(policy, row, 5), 121);
  CHECK(by_bytes.rows == 136);  // ceil(16384 / 121)
  // The 8 MiB cap bounds a whole batch of wide rows.
  CHECK(full_input_batch(16 * 1024, kInputBatchRows).rows == 512);
  // A producer's smaller batches are what a whole-batch sender sends.
  CHECK(full_input_batch(100, 814).rows == 814);
  CHECK(full_input_batch(100, 814).tuple_bytes == 81400);
}

TEST_CASE("static sender memory of a hash sender equals the formula of docs/impala.md §2.6, with growth by doubling") {
  // HEAD, 16K, 100-byte rows, 4 channels (none local), LZ4 on: each channel holds a
  // collector and one outbound buffer, each with room for LZ4bound(B) = 16379 B grown
  // by doubling (16384) and 163 offsets grown by doubling (256 x 4 B); plus one
  // shared scratch of the same 16384 B (docs/impala.md §§1.6, 2.6).
  const auto scenario = test::scenario_from(R"({
    "name": "m", "cluster": {"hosts": 5, "rtt_ms": {"same_group": 0.1}},
    "policies": {"p": {"compression": "lz4"}},
    "workload": {"queries": [{"name": "q", "exchanges": [
      {"id": "x", "kind": "hash", "rows": 1000, "row": {"fixed_bytes": 100}, "lz4_ratio": 0.5,
       "senders": {"hosts": ["h0"]}, "receivers": {"hosts": ["h1", "h2", "h3", "h4"]}}]}]}})");
  const Exchange& x = scenario.queries[0].exchanges[0];
  const Bytes bound = 16384;
  const Bytes per_channel = 2 * (16384 + 4 * 256);
  CHECK(sender_static_bytes(scenario.policies[0], x, 4, 0, 100) == 4 * per_channel + bound);
  auto per_host = static_sender_bytes_per_host(scenario, scenario.policies[0], false);
  CHECK(per_host[0] == 4 * per_channel + bound);
  CHECK(per_host[1] == 0);
  // Counted as the batches they hold (docs/impala.md §2.6's formula): 163 rows of 100 B,
  // LZ4-bound 16300 + 16300 / 255 + 16 = 16379 B of tuple data and 652 B of offsets.
  const Bytes held = 16379 + 4 * 163;
  CHECK(sender_static_bytes(scenario.policies[0], x, 4, 0, 100, BufferCount::kHeld) == 4 * 2 * held + 16379);
  const auto statics = static_sender_memory(scenario, scenario.policies[0]);
  CHECK(statics[0].expected == 4 * per_channel + bound);
  CHECK(statics[0].expected_held == 4 * 2 * held + 16379);
  CHECK(statics[0].worst_held == statics[0].expected_held);  // rows of one size
  CHECK(statics[1].expected_held == 0);
  // The planner: 4 channels x 2 x 2 x 1024 x (100 + 4). RANDOM is partitioned too;
  // broadcast and merge count one channel.
  CHECK(planner_sender_estimate(x) == 4 * 2 * 2 * 1024 * 104);
  Exchange random = x, broadcast = x;
  random.kind = PartitionKind::kRandom;
  broadcast.kind = PartitionKind::kBroadcast;
  CHECK(planner_sender_estimate(random) == 4 * 2 * 2 * 1024 * 104);
  CHECK(planner_sender_estimate(broadcast) == 2 * 2 * 1024 * 104);
}

TEST_CASE("HEAD: a hash channel's collector and outbound buffers, the collector empty after a fresh buffer's send") {
  const Policy head;
  const BufferRoom room = room_after({}, BatchSize{163, 16300}, /*swapped=*/true);
  CHECK(channel_buffer_bytes(head, PartitionKind::kHash, room, true, 1) == 2 * (16384 + 4 * 256));
  CHECK(channel_buffer_bytes(head, PartitionKind::kHash, room, true, 1, /*collector_empty=*/true) == 16384 + 4 * 256);
  CHECK(channel_buffer_bytes(head, PartitionKind::kHash, room, true, 2, /*collector_empty=*/true) ==
        2 * (16384 + 4 * 256));
  // Whole-batch kinds have no collector of their own: nothing changes.
  CHECK(channel_buffer_bytes(head, PartitionKind::kRandom, room, true, 1, true) ==
        channel_buffer_bytes(head, PartitionKind::kRandom, room, true, 1, false));
}

TEST_CASE("v4.3 layout keeps a RowBatch and two outbound batches with scratch per channel") {
  Policy policy;
  policy.sender_layout = SenderLayout::kV43;
  const BufferRoom room = room_after({}, BatchSize{163, 16300}, /*swapped=*/true);
  CHECK(room.data == 16384);
  CHECK(room.rows == 256);
  CHECK(channel_buffer_bytes(policy, PartitionKind::kHash, room, true, outbound_buffers_per_channel(policy)) ==
        (16384 + 8 * 256) + 2 * (16384 + 4 * 256 + 16384));
  // A batch of exactly 16 KiB: its LZ4 bound (16464 B) takes the outbound
  // buffers and their scratch to 32 KiB, but the RowBatch holds the
  // uncompressed rows: 16 KiB of tuples and 8 B a row.
  const BufferRoom full = room_after({}, BatchSize{128, 16384}, /*swapped=*/true);
  CHECK(full.data == 32768);
  CHECK(full.tuple == 16384);
  CHECK(channel_buffer_bytes(policy, PartitionKind::kHash, full, true, outbound_buffers_per_channel(policy)) ==
        (16384 + 8 * 128) + 2 * (32768 + 4 * 128 + 32768));
}

TEST_CASE("the LZ4 scratch's first buffer is the first batch's bound exactly, and doubles once a batch outgrows it") {
  // 27,370 B of rows: LZ4's bound is 27,370 + 107 + 16 = 27,493 B, no power of two.
  Bytes scratch = lz4_scratch_after(0, BatchSize{690, 27370});
  CHECK(scratch == 27493);
  CHECK(lz4_scratch_after(scratch, BatchSize{690, 27400}) == 27493);  // within it
  CHECK(lz4_scratch_after(scratch, BatchSize{0, 0}) == 27493);        // nothing compressed
  scratch = lz4_scratch_after(scratch, BatchSize{700, 27600});         // as a channel's buffer, outgrown
  CHECK(scratch == 54986);
  CHECK(lz4_scratch_after(scratch, BatchSize{700, 27700}) == 54986);
  // A batch larger than twice it takes its own bound.
  CHECK(lz4_scratch_after(1000, BatchSize{100, 5000}) == 5000 + 5000 / 255 + 16);
}

TEST_CASE("buffers filled row by row grow by doubling and never shrink") {
  CHECK(appended_capacity(1) == 256);
  CHECK(appended_capacity(16300) == 16384);
  CHECK(appended_capacity(16385) == 32768);
  CHECK(appended_capacity(163, 1) == 256);
  CHECK(appended_capacity(0) == 0);
  CHECK(appended_capacity(256) == 256);
  CHECK(appended_capacity(257) == 512);
  CHECK(appended_capacity(8 * kMiB + 1) == 16 * kMiB);
  BufferRoom room = room_after({}, BatchSize{1024, 40000}, false);
  CHECK(room.data == 65536);
  CHECK(room.rows == 1024);
  room = room_after(room, BatchSize{10, 1000}, false);  // a smaller batch keeps the room
  CHECK(room.data == 65536);
  CHECK(room.rows == 1024);
  // Compressed and kept: the LZ4 bound of 65536 B (65808) no longer fits 64 KiB.
  CHECK(room_after({}, BatchSize{1024, 65536}, true).data == 131072);
  CHECK(room_after({}, BatchSize{1024, 65536}, true).tuple == 65536);
  // Counted as held, a buffer is the batch it held last at its largest.
  const BufferRoom held = room_after({}, BatchSize{1024, 65536}, true, BufferCount::kHeld);
  CHECK(held.data == 65536 + 65536 / 255 + 16);
  CHECK(held.rows == 1024);
  CHECK(room_after(held, BatchSize{10, 1000}, true, BufferCount::kHeld).data == held.data);
  // Where the two counts part most: 16 KiB of data, compressed, is held at its
  // LZ4 bound of 16464 B, which doubling rounds up to a room of 32 KiB; sent
  // uncompressed the same batch is held, and roomed, at exactly 16 KiB.
  CHECK(room_after({}, BatchSize{128, 16384}, true, BufferCount::kHeld).data == 16464);
  CHECK(room_after({}, BatchSize{128, 16384}, true).data == 32768);
  CHECK(room_after({}, BatchSize{128, 16384}, false, BufferCount::kHeld).data == 16384);
  CHECK(room_after({}, BatchSize{128, 16384}, false).data == 16384);
  CHECK(room_after({}, BatchSize{100, 16384}, false, BufferCount::kHeld).rows == 100);
  CHECK(room_after({}, BatchSize{100, 16384}, false).rows == 128);
}

TEST_CASE("compression decisions follow IMPALA-12430") {
  Policy policy;  // lz4_skip_local
  CHECK(channel_compresses(policy, PartitionKind::kHash, 5, false));
  CHECK_FALSE(channel_compresses(policy, PartitionKind::kHash, 5, true));
  CHECK(channel_compresses(policy, PartitionKind::kBroadcast, 5, true));  // serialized once for all
  CHECK_FALSE(channel_compresses(policy, PartitionKind::kBroadcast, 1, true));
  policy.compression = Compression::kLz4;
  CHECK(channel_compresses(policy, PartitionKind::kHash, 5, true));
  policy.compression = Compression::kNone;
  CHECK_FALSE(channel_compresses(policy, PartitionKind::kHash, 5, false));
}

TEST_CASE("receiver queue rules: soft limit, FIFO deferral, at least one undeferred into an empty queue") {
  ReceiverQueue<int> q;
  const Bytes limit = 100;
  CHECK(q.arrive(1, 150, limit));  // an empty queue takes even an oversized batch
  CHECK_FALSE(q.arrive(2, 10, limit));  // 150 being deserialized: 160 > 100
  CHECK_FALSE(q.arrive(3, 1, limit));   // would fit, but call 2 waits first: FIFO
  CHECK(q.deferred_calls() == 2);
  q.enqueue({10, 150});
  CHECK(q.buffered_bytes() == 150);
  CHECK(q.pending_bytes() == 0);
  std::vector<int> admitted;
  q.undefer(limit, [&](int call, Bytes) { admitted.push_back(call); });
  CHECK(admitted.empty());  // still 150 queued
  auto batch = q.pop();
  REQUIRE(batch);
  CHECK(batch->rows == 10);
  q.undefer(limit, [&](int call, Bytes) { admitted.push_back(call); });
  CHECK(admitted == std::vector<int>{2, 3});  // both fit now, in order
  CHECK(q.pending_bytes() == 11);
  CHECK_FALSE(q.drained());
  q.enqueue({1, 10});
  q.enqueue({1, 1});
  CHECK(q.pop()->bytes == 10);
  CHECK(q.pop()->bytes == 1);
  CHECK_FALSE(q.pop().has_value());
  CHECK(q.drained());
  // Two oversized calls: the second is deferred, then admitted alone once the
  // queue is empty again.
  CHECK(q.arrive(4, 500, limit));
  CHECK_FALSE(q.arrive(5, 500, limit));
  q.enqueue({1, 500});
  q.pop();
  admitted.clear();
  q.undefer(limit, [&](int call, Bytes) { admitted.push_back(call); });
  CHECK(admitted == std::vector<int>{5});
}

// policy_notes.h: what a policy gives each channel after a budget's clamp, and
// the notes that say why results look alike.

TEST_CASE("a budget below its min on every hash exchange is said to send as a flat min would") {
  // 10 hosts x 8 receiver instances: 80 channels. 2M / (2 x 80) = 13.1K, below
  // the 16K min; 8M / 160 = 52.4K. A second exchange with 2 instances per host
  // (20 channels) gives 8M / 40 = 209.7K.
  const Scenario s = test::scenario_from(R"({"name": "n", "cluster": {"hosts": 10, "rtt_ms": {"same_group": 0.1}},
    "policies": {"16K": {}, "budget-2M": {"buffer": {"budget": "2M", "min": "16K", "max": "256K"}},
                 "budget-8M": {"buffer": {"budget": "8M", "min": "16K", "max": "256K"}}},
    "workload": {"queries": [{"name": "q", "exchanges": [
      {"id": "x", "kind": "hash", "rows": 1000, "row": {"fixed_bytes": 100}, "lz4_ratio": 1,
       "produce_rows_per_s": 1e6, "receivers": {"hosts": "all", "per_host": 8}},
      {"id": "y", "kind": "hash", "rows": 1000, "row": {"fixed_bytes": 100}, "lz4_ratio": 1,
       "produce_rows_per_s": 1e6, "receivers": {"hosts": "all", "per_host": 2}}]}]}})");
  const ChannelBuffers flat = channel_buffers(s, s.policies[0]);
  CHECK(flat.hash_exchanges == 2);
  CHECK(channel_buffers_text(flat) == "16K");
  const ChannelBuffers two = channel_buffers(s, s.policies[1]);
  CHECK(two.least == 16 * kKiB);
  CHECK(two.most == 2 * kMiB / 40);  // the 20-channel exchange: 52.4K
  CHECK(two.at_min == 1);
  const ChannelBuffers eight = channel_buffers(s, s.policies[2]);
  CHECK(eight.least == 8 * kMiB / 160);
  CHECK(eight.most == 8 * kMiB / 40);
  CHECK(channel_buffers_text(eight) == "51.2 KiB-205 KiB");  // 52428-209715 B: no raw byte counts
  // Not every exchange at the min: no note; with only the 80-channel exchange, one.
  CHECK(policy_notes(s, s.policies).empty());
  Scenario one = s;
  one.queries[0].exchanges.pop_back();
  const auto notes = policy_notes(one, one.policies);
  REQUIRE(notes.size() == 1);
  CHECK(notes[0].find("policy budget-2M") == 0);
  CHECK(notes[0].find("sends as a flat 16K would") != std::string::npos);
  // An exchange without produce_rows_per_s: its producers take no time, said.
  one.queries[0].exchanges[0].produce_rows_per_s = 0;
  const auto unbounded = policy_notes(one, {one.policies[0]});
  REQUIRE(unbounded.size() == 1);
  CHECK(unbounded[0].find("1 of 1 exchange(s) give neither produce_rows_per_s nor scan") == 0);
  // A scan alone bounds them.
  one.queries[0].exchanges[0].scan = {1e6, 1};
  CHECK(policy_notes(one, {one.policies[0]}).empty());
}

TEST_CASE("the in-flight window: room while a channel has fewer calls than allowed, idle when none has any") {
  InFlightWindow window(3, 2);  // 3 channels, 2 calls each
  CHECK(window.has_room(0));
  CHECK(window.idle());
  window.open_call(0);
  window.open_call(0);
  CHECK_FALSE(window.has_room(0));  // full: a sender sending here blocks, whole
  CHECK(window.has_room(1));        // the others are not
  window.open_call(2);
  CHECK(window.total() == 3);
  CHECK(window.peak() == 2);
  // Head-of-line: an answer on another channel frees nothing; one on the full
  // channel frees the sender waiting for it.
  window.close_call(2);
  CHECK_FALSE(window.frees(0, 2));
  window.close_call(0);
  CHECK(window.frees(0, 0));
  // The end of the stream waits for every channel.
  CHECK_FALSE(window.frees(InFlightWindow::kEveryChannel, 0));
  window.close_call(0);
  CHECK(window.idle());
  CHECK(window.frees(InFlightWindow::kEveryChannel, 0));
  CHECK(window.peak() == 2);  // the most ever, kept
}

TEST_CASE("the in-flight window: every call closed at once, and its counts bounded") {
  InFlightWindow window(3, 2);
  window.open_call(0);
  window.open_call(1);
  window.open_call(1);
  window.close_all();  // a sender that knows every answer is back
  CHECK(window.idle());
  CHECK(window.in_flight(1) == 0);
  CHECK(window.has_room(1));
  CHECK(window.peak() == 2);
  // A channel's count is a byte: more calls than it holds are refused, not wrapped.
  CHECK_THROWS_AS(InFlightWindow(1, InFlightWindow::kMostInFlight + 1), std::invalid_argument);
  CHECK_THROWS_AS(InFlightWindow(1, 0), std::invalid_argument);
  InFlightWindow widest(1, InFlightWindow::kMostInFlight);
  for (int i = 0; i < InFlightWindow::kMostInFlight; ++i) widest.open_call(0);
  CHECK_FALSE(widest.has_room(0));
  CHECK_THROWS_AS(widest.open_call(0), std::logic_error);
  CHECK(widest.in_flight(0) == InFlightWindow::kMostInFlight);
}

}  // namespace
}  // namespace exsim
