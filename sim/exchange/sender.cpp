#include "sim/exchange/sender.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "models/rounding.h"
#include "models/sender_memory.h"
#include "sim/exchange/exchange_run.h"
#include "sim/exchange/model_context.h"
#include "sim/exchange/receiver.h"
#include "sim/exchange/rpc_transport.h"

namespace exsim::sim {

SenderInstance::SenderInstance(ExchangeRun& run, int index, int host, std::int64_t rows, std::uint64_t seed)
    : run_(run), context_(run.context()), index_(index), host_(host), rows_left_(rows), random_(seed) {
  const Exchange& x = run.exchange();
  const int count = run.channels();
  channels_.resize(static_cast<std::size_t>(count));
  for (int c = 0; c < count; ++c) {
    Channel& ch = channels_[c];
    ch.receiver = c;
    ch.host = x.receivers.host_of(c);
    ch.local = ch.host == host;  // one process per host: same host, same process
    ch.compress = channel_compresses(context_.policy, x.kind, count, ch.local);
  }
  order_.resize(static_cast<std::size_t>(count));
  for (int c = 0; c < count; ++c) order_[c] = c;
  for (int i = count - 1; i > 0; --i) std::swap(order_[i], order_[random_.below(static_cast<std::uint64_t>(i) + 1)]);
  next_channel_ = index % count;  // spread round-robin senders over channels from the start
  if (context_.trace) {
    trace_tid_ = context_.trace_track(host_, fmt::format("{} sender {}", x.id, index));
    channel_tids_.assign(static_cast<std::size_t>(count), 0);
  }

  // Broadcast, random and merge send each input batch whole, and so does a hash
  // sender with one channel (Exchange::send_path). Otherwise a hash sender's
  // input batches are routed in groups: a group is split over the channels by
  // one multinomial draw (the sum of the batches' multinomials has exactly that
  // distribution) and its var-len bytes by one draw of their sum, with a channel's
  // rows spread evenly through the group. A group holds about two channel
  // batches per channel, so each channel's draw serves about two RPCs: groups
  // from half a batch to eight batches per channel gave the same results
  // within 0.6% (default scenario), and half a batch spent a quarter of the
  // simulator's time on the draws and their bookkeeping.
  const double mean_row = static_cast<double>(x.row.fixed_bytes) + x.row.varlen.mean();
  rows_per_step_ = full_input_batch(mean_row).rows;
  if (x.send_path() == PartitionKind::kHash) {
    const BatchSize full = full_channel_batch(run.capacity(), mean_row);
    const auto group = static_cast<std::int64_t>(static_cast<double>(full.rows) * count * 2.0 /
                                                 static_cast<double>(rows_per_step_));
    rows_per_step_ *= std::clamp<std::int64_t>(group, 1, 1024);
  }
}

void SenderInstance::start() {
  plan_next();
  run_steps();
}

void SenderInstance::plan_next() {
  steps_.clear();
  step_ = 0;
  if (rows_left_ == 0) {
    plan_final();
    return;
  }
  const Exchange& x = run_.exchange();
  const std::int64_t rows = std::min(rows_left_, rows_per_step_);
  rows_left_ -= rows;
  const Bytes tuple_bytes = rows * x.row.fixed_bytes + x.row.varlen.sample_sum(rows, random_);
  switch (x.send_path()) {
    case PartitionKind::kHash:
      plan_hash(rows, tuple_bytes);
      break;
    case PartitionKind::kBroadcast:
      plan_broadcast(rows, tuple_bytes);
      break;
    case PartitionKind::kRandom:
    case PartitionKind::kMerge:
      plan_round_robin(rows, tuple_bytes);
      break;
  }
  steps_.push_back(Step::of(Step::Kind::kNextBatch));
}

// Work of producing input rows and copying its rows into outbound batches; a
// hash sender also hashes each row to its channel (section 3.2). v4.3 copies
// every hash row twice: into a RowBatch, then serialized (section 2.5).
static SimTime batch_cpu(ModelContext& context, const Exchange& x, std::int64_t rows, Bytes tuple_bytes,
                         int copies) {
  double produce = x.produce_rows_per_s > 0 ? static_cast<double>(rows) / x.produce_rows_per_s * 1e9 : 0;
  double serialize = copies * static_cast<double>(tuple_bytes) * context.rates.serialize_ns_per_byte;
  if (x.send_path() == PartitionKind::kHash) serialize += static_cast<double>(rows) * context.rates.partition_ns_per_row;
  context.cpu.produce += produce * 1e-9;
  context.cpu.serialize += serialize * 1e-9;
  return to_ns(produce + serialize);
}

SenderInstance::SendCpu SenderInstance::send_cpu(const Channel& channel, BatchSize batch) {
  double compress = channel.compress ? static_cast<double>(batch.tuple_bytes) * context_.rates.compress_ns_per_byte : 0;
  context_.cpu.compress += compress * 1e-9;
  return {to_ns(compress), call_cpu(channel, batch)};
}

// The sender's side of one call carrying `batch` to `channel` (end-of-stream: an empty batch).
SimTime SenderInstance::call_cpu(const Channel& channel, BatchSize batch) {
  const double rpc = context_.rates.call_ns(context_.rates.wire_bytes(payload_bytes(channel, batch.tuple_bytes), batch.rows));
  context_.cpu.rpc += rpc * 1e-9;
  return to_ns(rpc);
}

// LZ4 output is kept only if smaller (outbound-row-batch.cc:76-82).
Bytes SenderInstance::payload_bytes(const Channel& channel, Bytes tuple_bytes) const {
  const double ratio = run_.exchange().lz4_ratio;
  return channel.compress && ratio < 1.0 ? static_cast<Bytes>(std::ceil(ratio * static_cast<double>(tuple_bytes)))
                                         : tuple_bytes;
}

std::int64_t SenderInstance::rows_to_fill(const Channel& channel, double row_bytes) const {
  const BatchCapacity& cap = run_.capacity();
  auto rows_until = [&](Bytes limit) {
    return static_cast<std::int64_t>(std::ceil(static_cast<double>(limit - channel.filling.tuple_bytes) / row_bytes));
  };
  std::int64_t need = rows_until(kBatchHardCap);
  need = std::min(need, cap.rule == CapacityRule::kFixedLen ? cap.rows - channel.filling.rows : rows_until(cap.target));
  return std::max<std::int64_t>(1, need);
}

void SenderInstance::plan_hash(std::int64_t rows, Bytes tuple_bytes) {
  const Exchange& x = run_.exchange();
  run_.splitter().split(rows, random_, counts_);
  split_proportionally(tuple_bytes - rows * x.row.fixed_bytes, counts_, rows, varlen_parts_);
  fills_.clear();
  for (std::size_t c = 0; c < channels_.size(); ++c) {
    const std::int64_t k = counts_[c];
    if (k == 0) continue;
    Channel& ch = channels_[c];
    const Bytes chunk = k * x.row.fixed_bytes + varlen_parts_[c];
    const double row_bytes = static_cast<double>(chunk) / static_cast<double>(k);
    // The channel's rows are spread evenly through the input batch, so its j-th
    // row arrives at fraction j / k of the batch's work.
    std::int64_t taken = 0;
    Bytes taken_bytes = 0;
    while (true) {
      const std::int64_t need = rows_to_fill(ch, row_bytes);
      if (k - taken < need) break;
      taken += need;
      const Bytes upto =
          round_half_away(static_cast<double>(chunk) * static_cast<double>(taken) / static_cast<double>(k));
      BatchSize sealed{ch.filling.rows + need, ch.filling.tuple_bytes + (upto - taken_bytes)};
      taken_bytes = upto;
      ch.filling = {};
      note_batch(ch, sealed);
      fills_.push_back({static_cast<double>(taken) / static_cast<double>(k), static_cast<int>(c), sealed});
    }
    ch.filling.rows += k - taken;
    ch.filling.tuple_bytes += chunk - taken_bytes;
    note_batch(ch, ch.filling);
  }
  std::sort(fills_.begin(), fills_.end(),
            [](const Fill& a, const Fill& b) { return a.at < b.at || (a.at == b.at && a.channel < b.channel); });
  const int copies = context_.policy.sender_layout == SenderLayout::kV43 ? 2 : 1;
  const double work = static_cast<double>(batch_cpu(context_, x, rows, tuple_bytes, copies));
  double done = 0;
  for (const Fill& fill : fills_) {
    const SendCpu send = send_cpu(channels_[fill.channel], fill.batch);
    steps_.push_back(Step::cpu(to_ns((fill.at - done) * work) + send.total(), send.compress, send.call));
    steps_.push_back(Step::send(fill.channel, fill.batch));
    done = fill.at;
  }
  steps_.push_back(Step::cpu(to_ns((1 - done) * work)));
}

void SenderInstance::plan_broadcast(std::int64_t rows, Bytes tuple_bytes) {
  const Exchange& x = run_.exchange();
  const BatchSize batch{rows, tuple_bytes};
  SimTime work = batch_cpu(context_, x, rows, 0, 1);  // produce only; serialization below
  const auto serialize = [&] {
    double ns = static_cast<double>(tuple_bytes) * context_.rates.serialize_ns_per_byte;
    context_.cpu.serialize += ns * 1e-9;
    return to_ns(ns);
  };
  if (context_.policy.broadcast_serialize == BroadcastSerialize::kOnce) {
    // Serialized (and compressed) once; every channel sends the same payload (section 3.1).
    note_shared(batch, /*serialized=*/true, channels_[order_[0]].compress);
    const SendCpu send = send_cpu(channels_[order_[0]], batch);
    steps_.push_back(Step::cpu(work + serialize() + send.total(), send.compress, send.call));
    for (std::size_t i = 0; i < order_.size(); ++i) {
      // Each further call's own CPU, its payload (the same bytes) included.
      if (i > 0) {
        const SimTime call = call_cpu(channels_[order_[i]], batch);
        steps_.push_back(Step::cpu(call, 0, call));
      }
      steps_.push_back(Step::send(order_[i], batch));
    }
    return;
  }
  // per_channel: the IMPALA-6041 regression serializes once per destination.
  steps_.push_back(Step::cpu(work));
  for (int c : order_) {
    note_shared(batch, /*serialized=*/true, channels_[c].compress);
    note_batch(channels_[c], batch);
    const SendCpu send = send_cpu(channels_[c], batch);
    steps_.push_back(Step::cpu(serialize() + send.total(), send.compress, send.call));
    steps_.push_back(Step::send(c, batch));
  }
}

void SenderInstance::plan_round_robin(std::int64_t rows, Bytes tuple_bytes) {
  // Whole input batches, one channel after another (section 3.3).
  const BatchSize batch{rows, tuple_bytes};
  const int c = next_channel_;
  next_channel_ = (next_channel_ + 1) % static_cast<int>(channels_.size());
  note_shared(batch, /*serialized=*/true, channels_[c].compress);
  note_batch(channels_[c], batch);
  const SendCpu send = send_cpu(channels_[c], batch);
  steps_.push_back(Step::cpu(batch_cpu(context_, run_.exchange(), rows, tuple_bytes, 1) + send.total(), send.compress,
                             send.call));
  steps_.push_back(Step::send(c, batch));
}

void SenderInstance::plan_final() {
  // FlushFinal (sender.cc:1297-1323): last partial batches, wait for all
  // channels, end-of-stream on all of them in parallel, wait again.
  for (std::size_t c = 0; c < channels_.size(); ++c) {
    Channel& ch = channels_[c];
    if (ch.filling.rows == 0) continue;
    const SendCpu send = send_cpu(ch, ch.filling);
    steps_.push_back(Step::cpu(send.total(), send.compress, send.call));
    steps_.push_back(Step::send(static_cast<int>(c), ch.filling));
    ch.filling = {};
  }
  steps_.push_back(Step::of(Step::Kind::kWaitAll));
  SimTime eos_cpu = 0;
  for (const Channel& ch : channels_) eos_cpu += call_cpu(ch, BatchSize{});
  steps_.push_back(Step::cpu(eos_cpu, 0, eos_cpu));
  steps_.push_back(Step::of(Step::Kind::kEos));
  steps_.push_back(Step::of(Step::Kind::kWaitAll));
  steps_.push_back(Step::of(Step::Kind::kDone));
}

void SenderInstance::run_steps() {
  while (step_ < steps_.size()) {
    const Step step = steps_[step_];
    switch (step.kind) {
      case Step::Kind::kCpu:
        ++step_;
        if (step.work > 0) {
          cpu_step_ = step;
          cpu_started_ = context_.cpu_pool(host_).start(step.work, this, kCpuDone);
          return;
        }
        break;
      case Step::Kind::kSend:
        retire(step.channel);
        if (channels_[step.channel].in_flight >= context_.policy.in_flight) {
          blocked_channel_ = step.channel;  // head-of-line: the whole thread waits
          blocked_since_ = context_.simulator.now();
          schedule_wake();
          return;
        }
        ++step_;
        issue_batch(step.channel, step.batch);
        break;
      case Step::Kind::kWaitAll:
        for (int c = 0; c < static_cast<int>(channels_.size()); ++c) retire(c);
        if (in_flight_total_ > 0) {
          waiting_all_ = true;
          blocked_since_ = context_.simulator.now();
          schedule_wake();
          return;
        }
        ++step_;
        break;
      case Step::Kind::kEos:
        ++step_;
        issue_eos_all();
        break;
      case Step::Kind::kNextBatch:
        plan_next();
        break;
      case Step::Kind::kDone:
        ++step_;
        finish();
        return;
    }
  }
}

void SenderInstance::on_event(std::uint64_t tag) {
  if (tag == kWake) {
    wake_at_ = -1;
    if (blocked_channel_ >= 0) retire(blocked_channel_);
    if (waiting_all_) {
      for (int c = 0; c < static_cast<int>(channels_.size()); ++c) retire(c);
    }
    const bool free = blocked_channel_ >= 0 ? channels_[blocked_channel_].in_flight < context_.policy.in_flight
                                            : in_flight_total_ == 0;
    if (free) {
      unblock();
    } else {
      schedule_wake();
    }
    return;
  }
  if (context_.trace) trace_cpu(cpu_step_, cpu_started_, context_.simulator.now());
  run_steps();
}

void SenderInstance::on_response_time(const Rpc& rpc, SimTime back) {
  channels_[rpc.channel].answered.push_back({rpc.issued, back, rpc.rows, rpc.wire_bytes});
  --unknown_;
  if (blocked_channel_ == rpc.channel || waiting_all_) schedule_wake();
}

void SenderInstance::retire(int channel) {
  Channel& ch = channels_[static_cast<std::size_t>(channel)];
  const SimTime now = context_.simulator.now();
  for (std::size_t i = 0; i < ch.answered.size();) {
    const Answered a = ch.answered[i];
    if (a.back > now) {
      ++i;
      continue;
    }
    ch.answered[i] = ch.answered.back();
    ch.answered.pop_back();
    --ch.in_flight;
    --in_flight_total_;
    if (context_.trace) {
      context_.trace->span(context_.trace_pid(host_), channel_track(channel), "rpc in flight", a.issued, a.back, a.rows,
                           a.wire);
    }
  }
}

void SenderInstance::schedule_wake() {
  if (wake_at_ >= 0) return;  // a wake is coming: responses known later are due later
  SimTime when = -1;
  if (blocked_channel_ >= 0) {
    for (const auto& a : channels_[blocked_channel_].answered) when = when < 0 ? a.back : std::min(when, a.back);
  } else if (waiting_all_ && unknown_ == 0) {
    for (const auto& ch : channels_) {
      for (const auto& a : ch.answered) when = std::max(when, a.back);
    }
  }
  if (when < 0) return;  // waits for the receiver to answer
  wake_at_ = when;
  context_.simulator.at(std::max(when, context_.simulator.now()), this, kWake);
}

void SenderInstance::unblock() {
  const SimTime now = context_.simulator.now();
  if (context_.trace) context_.trace->span(context_.trace_pid(host_), trace_tid_, "blocked", blocked_since_, now);
  blocked_ns_ += now - blocked_since_;
  blocked_channel_ = -1;
  waiting_all_ = false;
  run_steps();
}

void SenderInstance::issue_batch(int channel, BatchSize batch) {
  Channel& ch = channels_[channel];
  const Exchange& x = run_.exchange();
  const bool compressed = ch.compress && x.lz4_ratio < 1.0;
  const Bytes data = payload_bytes(ch, batch.tuple_bytes);
  Rpc* rpc = context_.transport->new_rpc();
  rpc->sender = this;
  rpc->receiver = &run_.receiver(ch.receiver);
  rpc->channel = channel;
  rpc->sender_index = index_;
  rpc->from_host = host_;
  rpc->to_host = ch.host;
  rpc->rows = batch.rows;
  rpc->tuple_bytes = batch.tuple_bytes;
  rpc->compressed = compressed;
  rpc->wire_bytes = context_.rates.wire_bytes(data, batch.rows);
  ++ch.in_flight;
  ++in_flight_total_;
  ++unknown_;
  // HEAD allocates an outbound buffer per RPC in flight together; v4.3 alternates
  // between its outbound batches from the second send on (section 2.5).
  ch.sends = std::min(ch.sends + 1, 1 << 20);
  const int used = context_.policy.sender_layout == SenderLayout::kV43
                       ? std::min(outbound_buffers_per_channel(context_.policy), ch.sends)
                       : ch.in_flight;
  if (used > ch.outbound_used) {
    ch.outbound_used = used;
    note_batch(ch, batch);
  }
  ExchangeStats& stats = run_.stats();
  ++stats.rpcs;
  stats.bytes_wire += static_cast<double>(rpc->wire_bytes);
  stats.bytes_uncompressed += static_cast<double>(batch.tuple_bytes + 4 * batch.rows);
  context_.transport->issue(rpc);
}

void SenderInstance::issue_eos_all() {
  for (std::size_t c = 0; c < channels_.size(); ++c) {
    Channel& ch = channels_[c];
    Rpc* rpc = context_.transport->new_rpc();
    rpc->eos = true;
    rpc->sender = this;
    rpc->receiver = &run_.receiver(ch.receiver);
    rpc->channel = static_cast<int>(c);
    rpc->sender_index = index_;
    rpc->from_host = host_;
    rpc->to_host = ch.host;
    rpc->wire_bytes = context_.rates.wire_bytes(0, 0);
    ++ch.in_flight;
    ++in_flight_total_;
    ++unknown_;
    ++run_.stats().eos_rpcs;
    run_.stats().bytes_wire += static_cast<double>(rpc->wire_bytes);
    context_.transport->issue(rpc);
  }
}

void SenderInstance::finish() {
  add_footprint(-footprint_);
  run_.stats().blocked_ns += blocked_ns_;
  run_.sender_finished(*this);
}

}  // namespace exsim::sim
