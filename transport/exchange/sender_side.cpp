#include "transport/exchange/sender_side.h"

#include "transport/exchange/trace_recorder.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include <fmt/format.h>

#include "models/base/random.h"
#include "models/rules/partitioning.h"
#include "models/rules/scan_feed.h"
#include "models/rules/sender_memory.h"
#include "transport/net/thread_cpu.h"

namespace exsim::transport {
namespace {

// What a call's response must tell its sender: the channel, and where the
// batch it carried is (one of the channel's slots, one of the slots every
// channel shares, or none: an end-of-stream). It travels as the RPC layer's
// opaque 64-bit cookie: the kind in the top two bits, the channel in bits
// 16-39, the slot in bits 0-15.
struct CallTag {
  enum class Kind : std::uint8_t { kChannelSlot, kSharedSlot, kEndOfStream };
  Kind kind = Kind::kChannelSlot;
  int channel = 0;
  std::size_t slot = 0;

  static constexpr std::uint64_t kShared = std::uint64_t{1} << 63, kEos = std::uint64_t{1} << 62;
  static constexpr std::size_t kMaxSlots = 1 << 16;
  static constexpr int kMaxChannels = 1 << 24;

  std::uint64_t cookie() const {
    if (slot >= kMaxSlots || channel < 0 || channel >= kMaxChannels) {
      throw std::logic_error("internal error: a call's slot or channel does not fit its cookie");
    }
    const std::uint64_t kind_bits = kind == Kind::kSharedSlot ? kShared : kind == Kind::kEndOfStream ? kEos : 0;
    return kind_bits | static_cast<std::uint64_t>(channel) << 16 | slot;
  }
  static CallTag of(std::uint64_t cookie) {
    const Kind kind = (cookie & kEos)      ? Kind::kEndOfStream
                      : (cookie & kShared) ? Kind::kSharedSlot
                                           : Kind::kChannelSlot;
    return {kind, static_cast<int>((cookie >> 16) & (kMaxChannels - 1)),
            static_cast<std::size_t>(cookie & (kMaxSlots - 1))};
  }
};

}  // namespace

SenderInstance::SenderInstance(Host& host, const Exchange& exchange, const Policy& policy, SenderSetup setup,
                               RunStats& stats)
    : host_(host),
      exchange_(exchange),
      policy_(policy),
      setup_(std::move(setup)),
      stats_(stats),
      capacity_(channel_capacity(policy, exchange.row, exchange.receivers.instances())),
      channels_(static_cast<std::size_t>(exchange.receivers.instances())),
      window_(exchange.receivers.instances(), policy.in_flight),
      generator_(exchange.row, setup_.random_share, setup_.seed),
      rows_per_input_(full_input_batch(static_cast<double>(exchange.row.fixed_bytes) + exchange.row.varlen.mean(),
                                       exchange.input_batch_rows)
                          .rows) {
  const int count = exchange.receivers.instances();
  Random order_random(setup_.seed ^ 0x6f72646572ULL);  // "order"
  broadcast_order_ = broadcast_order(count, order_random);
  for (int c = 0; c < count; ++c) {
    Channel& ch = channels_[static_cast<std::size_t>(c)];
    ch.receiver = c;
    ch.host = exchange.receivers.host_of(c);
    ch.compress = channel_compresses(policy, exchange.kind, count, ch.host == host.index());
    for (int s = 0; s < policy.in_flight; ++s) ch.slots.push_back(std::make_unique<Slot>());
    ch.shared_prefix.resize(static_cast<std::size_t>(policy.in_flight) + 1);
    ch.sent_at.resize(static_cast<std::size_t>(policy.in_flight));
    ch.shared_sent_at.resize(static_cast<std::size_t>(policy.in_flight) + 1);
  }
  for (int s = 0; s <= policy.in_flight; ++s) shared_slots_.push_back(std::make_unique<Slot>());
  // Only what LZ4 reads must not repeat: uncompressed, the rows' bytes matter to no one.
  refresh_ring_ = exchange.lz4_ratio < 1 && std::any_of(channels_.begin(), channels_.end(), [](const Channel& ch) { return ch.compress; });
  if (setup_.scan.threads > 0) scanners_ = std::make_unique<ScannerThreads>(setup_.scan, stats_.cpu_produce);
  // The ring of full input batches is generated here, before the exchange's
  // clock starts, in the order next_input() takes them: our generator and its
  // first touch of the ring's pages (a 1 MiB batch is 256 page faults) are not
  // the operator the sender stands for, whose cost produce_rows_per_s gives.
  const std::int64_t full_inputs = setup_.rows / rows_per_input_;
  for (std::size_t i = 0; i < ring_.size() && static_cast<std::int64_t>(i) < full_inputs; ++i) {
    generator_.fill(ring_[i], rows_per_input_, &ring_pieces_[i]);
  }
}

SenderInstance::~SenderInstance() {
  cancel("sender destroyed");
  if (thread_.joinable()) thread_.join();
}

void SenderInstance::start() {
  if (stats_.trace) {
    // Every track before the thread starts: responses name spans on channel tracks from reactor threads.
    trace_tid_ = stats_.trace->track(fmt::format("{} sender {}", stats_.trace_label, setup_.index));
    for (int c = 0; c < static_cast<int>(channels_.size()); ++c) channel_track(c);
  }
  if (scanners_) scanners_->start();
  thread_ = std::thread([this] { run(); });
}

void SenderInstance::trace_span(const char* name, Clock::time_point start, Clock::time_point end) {
  if (stats_.trace && end > start) stats_.trace->span(trace_tid_, name, start, end);
}

int SenderInstance::channel_track(int c) {
  Channel& ch = channels_[static_cast<std::size_t>(c)];
  if (ch.trace_tid == 0) {
    ch.trace_tid = stats_.trace->track(fmt::format("{} sender {} channel {} to h{}", stats_.trace_label, setup_.index, c, ch.host));
  }
  return ch.trace_tid;
}

bool SenderInstance::acquire(int c) {
  const auto start = Clock::now();
  const bool ok = window_.acquire(c, setup_.deadline, blocked_);
  const auto end = Clock::now();
  if (end - start >= std::chrono::microseconds(1)) trace_span("blocked", start, end);  // not a free slot's check
  return ok;
}

bool SenderInstance::wait_idle() {
  const auto start = Clock::now();
  const bool ok = window_.wait_idle(setup_.deadline, blocked_);
  const auto end = Clock::now();
  if (end - start >= std::chrono::microseconds(1)) trace_span("blocked", start, end);
  return ok;
}

bool SenderInstance::join() {
  if (thread_.joinable()) thread_.join();
  return ok_;
}

void SenderInstance::run() {
  const ThreadLedger ledger;
  const std::int64_t faults_before = thread_minor_faults();
  const auto born = Clock::now();
  if (exchange_.send_path() == PartitionKind::kHash) {
    run_hash();
  } else {
    run_whole_batches();
  }
  ok_ = !stats_.failed && finish();
  stats_.cpu_call += ledger.unstaged_ns();
  stats_.sender_minor_faults += thread_minor_faults() - faults_before;
  stats_.blocked_ns += std::chrono::duration_cast<std::chrono::nanoseconds>(blocked_).count();
  if (!detached_) {
    stats_.add_wakes(window_.wakes());
    stats_.sender_life_ns += std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - born).count();
  }
  stats_.add_sender_bytes(host_.index(), -footprint_);
  ++stats_.senders;
  std::int64_t largest = stats_.max_instance_peak.load();
  while (peak_footprint_ > largest && !stats_.max_instance_peak.compare_exchange_weak(largest, peak_footprint_)) {
  }
  const std::int64_t over = peak_footprint_ - planner_sender_estimate(exchange_);
  if (over > 0) {
    ++stats_.over_estimate;
    std::int64_t seen = stats_.max_over_bytes.load();
    while (over > seen && !stats_.max_over_bytes.compare_exchange_weak(seen, over)) {
    }
  }
  if (!ok_ && !stats_.failed) {
    const std::string reason = window_.cancel_reason();
    stats_.fail(fmt::format("sender {} on host {}: {}", setup_.index, host_.index(),
                            reason.empty() ? "missed its deadline waiting for a channel" : reason));
  }
  done_ = true;
  if (setup_.running) setup_.running->count_down();
}


void SenderInstance::run_hash() {
  try {
    keys_.emplace(setup_.shares, static_cast<int>(std::min<Bytes>(8, exchange_.row.fixed_bytes)),
                  setup_.seed ^ 0x6b657973ULL);  // "keys"
  } catch (const std::invalid_argument& e) {
    stats_.fail(fmt::format("sender {}: {}", setup_.index, e.what()));
    return;
  }
  std::int64_t left = setup_.rows;
  while (left > 0 && !stats_.failed) {
    const std::int64_t n = std::min<std::int64_t>(left, rows_per_input_);
    left -= n;
    serialize_from_ = Clock::now();
    const RowBatch& input = next_input(n);
    // Routing and copying the batch's rows is the serialize stage, as Impala's
    // HashAndAddRows: the key's hash modulo the channels, the row appended to
    // that channel's batch. It is timed per input batch (a thread CPU clock
    // read costs about as much as a row), less the encoding of the batches it
    // fills, which is timed on its own.
    const std::int64_t cpu_start = thread_cpu_ns();
    const std::int64_t aside_before = aside_ns_;
    const char* data = input.data().data();
    const auto& offsets = input.offsets();
    for (std::uint32_t r = 0; r < input.rows(); ++r) {
      const std::uint32_t start = offsets[r];
      const std::uint32_t end = r + 1 < input.rows() ? offsets[r + 1] : static_cast<std::uint32_t>(input.tuple_bytes());
      const int c = keys_->channel_of(data + start);
      Channel& ch = channels_[static_cast<std::size_t>(c)];
      std::memcpy(ch.collector.append_row(end - start), data + start, end - start);
      if (capacity_.full(ch.collector.rows(), static_cast<Bytes>(ch.collector.tuple_bytes())) && !flush(c)) return;
    }
    charge(stats_.cpu_serialize, thread_cpu_ns() - cpu_start - (aside_ns_ - aside_before));
    trace_span("serialize", serialize_from_, Clock::now());
  }
}

// The operator feeding the sender: `rows` rows at produce_rows_per_s of this
// thread's CPU (thread_cpu.h says why CPU and not sleep), our generator's own
// work included, after its scan: the scanner threads' next batch, or the scan's
// CPU on this thread.
RowBatch& SenderInstance::next_input(std::int64_t rows) {
  const auto from = Clock::now();
  if (scanners_ && !scanners_->take(setup_.deadline)) {
    window_.cancel("its scanner threads delivered no batch by its deadline");  // the loops stop at the next send
  }
  CpuScope cpu(stats_.cpu_produce);
  RowBatch* batch = &input_;
  if (rows == rows_per_input_) {
    // Full input batches come from a small ring generated before the start:
    // the operator feeding the sender costs what produce_rows_per_s says.
    const std::size_t next = ring_next_++ % ring_.size();
    batch = &ring_[next];
    if (ring_next_ > ring_.size() && refresh_ring_) generator_.refresh(*batch, ring_pieces_[next]);
  } else {
    input_.clear();
    generator_.fill(input_, rows);
  }
  // The rows' partitioning keys come with them from the operator (routing_keys.h).
  if (keys_) keys_->write(*batch);
  const double ns = sender_input_ns(exchange_, rows, scanners_ != nullptr);
  if (ns > 0) burn_thread_cpu_until(cpu.start_ns() + static_cast<std::int64_t>(ns));
  stats_.produce_wall_ns += std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - from).count();
  return *batch;
}

void SenderInstance::run_whole_batches() {
  const int count = static_cast<int>(channels_.size());
  int next = setup_.index % count;
  std::size_t shared = 0;
  std::int64_t left = setup_.rows;
  const std::int64_t per_batch = rows_per_input_;
  while (left > 0 && !stats_.failed) {
    const std::int64_t n = std::min(left, per_batch);
    left -= n;
    serialize_from_ = Clock::now();
    const RowBatch& input = next_input(n);
    // As in Impala, a batch is serialized and compressed before the sender
    // waits for its channel (SerializeBatch, then TransmitData's wait, docs/impala.md
    // §§2.1, 2.4): the LZ4 work is not on the channel's round trip.
    if (exchange_.kind == PartitionKind::kBroadcast && policy_.broadcast_serialize == BroadcastSerialize::kOnce) {
      // Serialized once; every channel sends the same bytes (docs/impala.md §3.1).
      Slot& slot = *shared_slots_[shared];
      shared = (shared + 1) % shared_slots_.size();
      {
        CpuScope cpu(stats_.cpu_serialize);
        slot.batch.copy_rows_from(input);
      }
      trace_span("serialize", serialize_from_, Clock::now());
      encode(slot.batch, channels_.front().compress, slot.encoded);
      for (int c : broadcast_order_) {
        if (!acquire(c)) return;
        send(c, slot, /*shared=*/true);
      }
      continue;
    }
    // Random and merge send each batch to one channel; a per_channel broadcast
    // serializes it again for every channel (IMPALA-6041). Either way it is
    // serialized into the sender's serialization batch, which is then swapped
    // into the channel's outbound buffer (docs/impala.md §2.4).
    const auto serialize_and_send = [&](int c) {
      {
        CpuScope cpu(stats_.cpu_serialize);
        serialization_.copy_rows_from(input);
      }
      trace_span("serialize", serialize_from_, Clock::now());
      if (!encode_and_send(c, serialization_)) return false;
      serialize_from_ = Clock::now();
      return true;
    };
    if (exchange_.kind == PartitionKind::kBroadcast) {
      for (int c : broadcast_order_) {
        if (!serialize_and_send(c)) return;
      }
    } else {
      const int c = next;
      next = (next + 1) % count;
      if (!serialize_and_send(c)) return;
    }
  }
}

SenderInstance::Slot* SenderInstance::free_slot(std::vector<std::unique_ptr<Slot>>& slots) {
  // The window guarantees one: at most in_flight calls, one per busy slot.
  for (auto& s : slots) {
    if (s->users.load() == 0) return s.get();
  }
  return slots.front().get();
}

// A full collector: compressed in place, then, once the channel is free,
// swapped into its outbound buffer and sent (SendCurrentBatch, docs/impala.md §2.4).
bool SenderInstance::flush(int c) {
  Channel& ch = channels_[static_cast<std::size_t>(c)];
  trace_span("serialize", serialize_from_, Clock::now());  // the rows routed since the last span
  const bool ok = encode_and_send(c, ch.collector);
  ch.collector.clear();
  serialize_from_ = Clock::now();
  return ok;
}

bool SenderInstance::encode_and_send(int c, RowBatch& batch) {
  Channel& ch = channels_[static_cast<std::size_t>(c)];
  EncodedBatch encoded;
  encode(batch, ch.compress, encoded);
  // Waiting for the window and handing the call over are no stage's: set
  // aside from the routing loop's serialization, left to the thread's ledger.
  const std::int64_t handoff_start = thread_cpu_ns();
  const bool ok = acquire(c);
  if (ok) {
    Slot* slot = free_slot(ch.slots);
    std::swap(slot->batch, batch);  // moves the buffers `encoded` points into
    slot->encoded = encoded;
    send(c, *slot, /*shared=*/false);
  }
  aside_ns_ += thread_cpu_ns() - handoff_start;
  return ok;
}

void SenderInstance::encode(RowBatch& batch, bool compress, EncodedBatch& out) {
  const auto wall_start = Clock::now();
  const std::int64_t cpu_start = thread_cpu_ns();
  encode_batch(batch, compress, codec_, scratch_, out);
  // Encoding is LZ4 plus the checksum: the compress stage when compressing,
  // else part of serialization, as the model counts them.
  const std::int64_t spent = thread_cpu_ns() - cpu_start;
  charge(compress ? stats_.cpu_compress : stats_.cpu_serialize, spent);
  trace_span(compress ? "compress" : "serialize", wall_start, Clock::now());
  aside_ns_ += spent;
  if (compress) {
    stats_.payload_compressed_in += static_cast<std::int64_t>(out.fields.tuple_bytes);
    stats_.payload_compressed_out += static_cast<std::int64_t>(out.fields.payload_bytes);
  }
}

void SenderInstance::send(int c, Slot& slot, bool shared) {
  Channel& ch = channels_[static_cast<std::size_t>(c)];
  std::size_t index = 0;
  auto& slots = shared ? shared_slots_ : ch.slots;
  while (slots[index].get() != &slot) ++index;
  char* prefix = shared ? ch.shared_prefix[index].data() : slot.prefix;
  CallAddress address;
  address.run = setup_.run;
  address.sender = static_cast<std::uint32_t>(setup_.index);
  address.receiver = static_cast<std::uint32_t>(ch.receiver);
  address.encode(prefix);
  std::memcpy(prefix + CallAddress::kSize, slot.encoded.header, RowBatchHeader::kSize);
  ++slot.users;
  const CallTag tag{shared ? CallTag::Kind::kSharedSlot : CallTag::Kind::kChannelSlot, c, index};
  const std::size_t offsets = 4ULL * slot.encoded.fields.rows;
  const auto sent = Clock::now();
  (shared ? ch.shared_sent_at : ch.sent_at)[index] = sent;
  ++stats_.rpcs;
  stats_.bytes_wire += static_cast<std::int64_t>(FrameHeader::kSize + sizeof slot.prefix + offsets + slot.encoded.fields.payload_bytes);
  stats_.bytes_uncompressed += static_cast<std::int64_t>(slot.encoded.fields.tuple_bytes + offsets);
  host_.call(ch.host, FrameType::kTransmitData,
             {asio::buffer(prefix, sizeof slot.prefix), asio::buffer(slot.encoded.offsets, offsets),
              asio::buffer(slot.encoded.payload, slot.encoded.fields.payload_bytes)},
             3, this, tag.cookie());
  trace_span("send", sent, Clock::now());
  account_memory();
}

bool SenderInstance::finish() {
  if (exchange_.send_path() == PartitionKind::kHash) {
    for (int c = 0; c < static_cast<int>(channels_.size()); ++c) {
      if (channels_[static_cast<std::size_t>(c)].collector.rows() > 0 && !flush(c)) return false;
    }
  }
  if (!wait_idle()) return false;
  // End-of-stream on every channel at once (IMPALA-9134), then wait for all.
  eos_.resize(channels_.size());  // a member: the calls refer to these bytes until sent
  auto& eos = eos_;
  for (std::size_t c = 0; c < channels_.size(); ++c) {
    if (!acquire(static_cast<int>(c))) return false;
    CallAddress address;
    address.run = setup_.run;
    address.sender = static_cast<std::uint32_t>(setup_.index);
    address.receiver = static_cast<std::uint32_t>(channels_[c].receiver);
    address.encode(eos[c].data());
    ++stats_.eos_rpcs;
    channels_[c].eos_sent_at = Clock::now();
    stats_.bytes_wire += static_cast<std::int64_t>(FrameHeader::kSize + CallAddress::kSize);
    host_.call(channels_[c].host, FrameType::kEndOfStream, {asio::buffer(eos[c]), {}, {}}, 1, this,
               CallTag{CallTag::Kind::kEndOfStream, static_cast<int>(c), 0}.cookie());
  }
  return wait_idle();
}

void SenderInstance::on_call_done(std::uint64_t cookie, const CallResult& result, std::int64_t network_ns) {
  const CallTag tag = CallTag::of(cookie);
  const int c = tag.channel;
  if (stats_.trace && !detached_) {
    const Channel& ch = channels_[static_cast<std::size_t>(c)];
    const auto sent = tag.kind == CallTag::Kind::kEndOfStream ? ch.eos_sent_at
                      : tag.kind == CallTag::Kind::kSharedSlot ? ch.shared_sent_at[tag.slot]
                                                                : ch.sent_at[tag.slot];
    stats_.trace->span(channel_track(c), "rpc in flight", sent, Clock::now());
  }
  if (tag.kind != CallTag::Kind::kEndOfStream) {
    auto& slots =
        tag.kind == CallTag::Kind::kSharedSlot ? shared_slots_ : channels_[static_cast<std::size_t>(c)].slots;
    --slots[tag.slot]->users;
    if (!detached_) stats_.add_call_times(network_ns, result.receiver_ns);
  }
  if (result.status != 0 && !detached_) stats_.fail(fmt::format("sender {}: receiver {} refused a call", setup_.index, c));
  window_.release(c);
}

void SenderInstance::account_memory() {
  std::int64_t total = 0;
  for (const auto& ch : channels_) {
    total += static_cast<std::int64_t>(ch.collector.footprint());
    for (const auto& s : ch.slots) total += static_cast<std::int64_t>(s->batch.footprint());
  }
  for (const auto& s : shared_slots_) total += static_cast<std::int64_t>(s->batch.footprint());
  total += static_cast<std::int64_t>(scratch_.capacity() + serialization_.footprint());
  // Input batches belong to the operator feeding the sender, as in Impala, whose
  // sender tracks only its serialization buffers: they are not counted.
  if (total != footprint_) {
    stats_.add_sender_bytes(host_.index(), total - footprint_);
    footprint_ = total;
    peak_footprint_ = std::max(peak_footprint_, total);
  }
}

}  // namespace exsim::transport
