#include "sim/exchange/sender.h"

#include <algorithm>

#include <fmt/format.h>

#include "models/rules/partitioning.h"
#include "models/rules/scan_feed.h"
#include "models/rules/sender_memory.h"
#include "sim/exchange/exchange_run.h"
#include "sim/exchange/model_context.h"
#include "sim/exchange/receiver.h"
#include "sim/exchange/rpc_transport.h"

namespace exsim::sim {

SenderInstance::SenderInstance(ExchangeRun& run, int index, int host, std::int64_t rows, std::uint64_t seed)
    : run_(run),
      context_(run.context()),
      index_(index),
      host_(host),
      rows_left_(rows),
      rows_(rows),
      lz4_ratio_(run.exchange().lz4_ratio),
      hash_(run.exchange().send_path() == PartitionKind::kHash),
      head_layout_(run.context().policy.sender_layout == SenderLayout::kHead),
      counts_connection_calls_(run.context().rates.calls_share()),
      random_(seed),
      window_(run.channels(), run.context().policy.in_flight) {
  const Exchange& x = run.exchange();
  const int count = run.channels();
  channels_.resize(static_cast<std::size_t>(count));
  listing_.assign((static_cast<std::size_t>(count) + 63) / 64, 0);
  for (int c = 0; c < count; ++c) {
    Channel& ch = channels_[c];
    ch.host = x.receivers.host_of(c);
    ch.local = ch.host == host;  // one process per host: same host, same process
    ch.compress = channel_compresses(context_.policy, x.kind, count, ch.local);
  }
  // Every sender draws the shuffle, so that its stream of draws is the same
  // whatever the kind; only a broadcast one keeps it (one per channel).
  std::vector<int> order = broadcast_order(count, random_);
  if (x.send_path() == PartitionKind::kBroadcast) order_ = std::move(order);
  const std::size_t hosts = run.context().scenario.cluster.hosts.size();
  if (counts_connection_calls_) {
    calls_to_host_.assign(hosts, 0);
    responses_due_.resize(hosts);
  }
  channels_to_host_.assign(hosts, 0);
  for (const Channel& ch : channels_) ++channels_to_host_[static_cast<std::size_t>(ch.host)];
  if (context_.policy.sender_layout == SenderLayout::kHead) {
    tracked_ = std::make_unique<TrackedStrings>(count, outbound_buffers_per_channel(context_.policy), x.lz4_ratio);
  }
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
  // A sender fed by scanner threads takes one input batch at a time, as
  // Impala's does: in groups it would wait for a whole group's scan before its
  // first row and its scanners' queue would hold fewer, larger steps. (Groups
  // there gave IMPALA-15512 at 4 threads a median query 4% faster at 64K and
  // 128K slower than 64K; the simulator spends about a third more time.)
  const double mean_row = static_cast<double>(x.row.fixed_bytes) + x.row.varlen.mean();
  rows_per_step_ = full_input_batch(mean_row, x.input_batch_rows).rows;
  const ScanShape scan = scan_shape(context_.scenario, x, rows);
  const BatchSize full = full_channel_batch(run.capacity(), mean_row);
  if (x.send_path() == PartitionKind::kHash) route_ns_per_row_ = context_.rates.route_ns_per_row(run.cache_load(host_), mean_row);
  if (x.send_path() == PartitionKind::kHash && scan.threads == 0) {
    const auto group = static_cast<std::int64_t>(static_cast<double>(full.rows) * count * 2.0 /
                                                 static_cast<double>(rows_per_step_));
    rows_per_step_ *= std::clamp<std::int64_t>(group, 1, 1024);
  }
  if (scan.threads > 0) scan_ = std::make_unique<ScanFeed>(context_, host_, scan, *this, kScanned);
}

void SenderInstance::start() {
  if (scan_) scan_->start();
  plan_next();
  run_steps();
}

void SenderInstance::run_steps() {
  while (step_ < steps_.size()) {
    const Step step = steps_[step_];
    switch (step.kind) {
      case Step::Kind::kCpu: {
        ++step_;
        Step run = step;
        take_call_along(run);
        if (run.work > 0) {
          start_cpu(run);
          return;
        }
        break;
      }
      case Step::Kind::kSend:
        retire(step.channel);
        if (!window_.has_room(step.channel)) {
          blocked_channel_ = step.channel;  // head-of-line: the whole thread waits
          blocked_since_ = wait_mark_ = context_.simulator.now();
          schedule_wake();
          return;
        }
        if (step.call_due) {
          // The window has room now: the call's own CPU, then (back here) the call.
          steps_[step_].call_due = false;
          const SimTime call = call_cpu_now(steps_[step_]);
          start_cpu(Step::cpu(call, 0, call));
          return;
        }
        ++step_;
        issue_batch(step.channel, step.batch, step.together);
        break;
      case Step::Kind::kFlush:
        if (!plan_flush()) ++step_;
        break;
      case Step::Kind::kWaitAll:
        retire_all();
        if (!window_.idle()) {
          waiting_all_ = true;
          blocked_since_ = wait_mark_ = context_.simulator.now();
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
  if (tag == kScanned) {
    // The thread waited for its scanner threads: the producer's time.
    const SimTime now = context_.simulator.now();
    add_time(Bound::kProducer, now - scan_wait_since_);
    if (context_.trace) {
      context_.trace->span(context_.trace_pid(host_), trace_tid_, "waiting for the scan", scan_wait_since_, now);
    }
    plan_next();
    run_steps();
    return;
  }
  if (tag == kWake) {
    wake_at_ = -1;
    attribute_wait();
    if (blocked_channel_ >= 0) retire(blocked_channel_);
    if (waiting_all_) retire_all();
    const bool free = blocked_channel_ >= 0 ? window_.has_room(blocked_channel_) : window_.idle();
    if (free) {
      context_.sender_wake_ns.add(context_.simulator.now() - wake_for_);
      unblock();
    } else {
      schedule_wake();
    }
    return;
  }
  // The step's time, waiting for a core included, goes to the producer and to
  // the sender's own work in proportion to their CPU.
  const SimTime spent = context_.simulator.now() - cpu_requested_;
  const auto produced = static_cast<SimTime>(static_cast<double>(spent) * static_cast<double>(cpu_step_.produce) /
                                             static_cast<double>(cpu_step_.work));
  add_time(Bound::kProducer, produced);
  add_time(Bound::kSenderCpu, spent - produced);
  if (context_.trace) trace_cpu(cpu_step_, cpu_started_, context_.simulator.now());
  run_steps();
}

void SenderInstance::start_cpu(const Step& step) {
  cpu_step_ = step;
  cpu_requested_ = context_.simulator.now();
  cpu_started_ = context_.cpu_pool(host_).start(step.work, this, kCpuDone);
}

void SenderInstance::attribute_wait() {
  const SimTime now = context_.simulator.now();
  SimTime left = now - wait_mark_;
  wait_mark_ = now;
  const auto give = [&](Bound bound, SimTime part) {
    const SimTime t = std::clamp<SimTime>(part, 0, left);
    add_time(bound, t);
    left -= t;
  };
  give(Bound::kRoundTrips, now - wake_for_);  // the thread's wake-up after the response
  give(Bound::kRoundTrips, wake_parts_.back);
  give(Bound::kReceiver, wake_parts_.receiver);
  give(Bound::kConsumer, wake_parts_.held);
  give(Bound::kRoundTrips, wake_parts_.to_receiver);
  give(Bound::kNic, wake_parts_.transfer);
  add_time(Bound::kRoundTrips, left);  // none: a wait starts after the call it waits for was issued
}

// As in Impala, the thread spends a call's own CPU after the channel's window
// has room (TransmitData waits for the previous call, then sends), so on a
// latency-bound channel it is part of every round. A window with room when the
// step before the send starts still has room at its end (only this thread adds
// calls to its channel): the call's CPU then joins that step.
void SenderInstance::take_call_along(Step& cpu) {
  if (step_ >= steps_.size() || steps_[step_].kind != Step::Kind::kSend || !steps_[step_].call_due) return;
  Step& send = steps_[step_];
  retire(send.channel);
  if (!window_.has_room(send.channel)) return;
  const SimTime call = call_cpu_now(send);
  cpu.work += call;
  cpu.call += call;
  send.call_due = false;
}

int SenderInstance::on_connection_now(int host) {
  auto& due = responses_due_[static_cast<std::size_t>(host)];
  const SimTime now = context_.simulator.now();
  while (!due.empty() && due.front() <= now) due.pop();
  return calls_to_host_[static_cast<std::size_t>(host)] + static_cast<int>(due.size());
}

void SenderInstance::unblock() {
  const SimTime now = context_.simulator.now();
  if (context_.trace) context_.trace->span(context_.trace_pid(host_), trace_tid_, "blocked", blocked_since_, now);
  blocked_ns_ += now - blocked_since_;
  blocked_channel_ = -1;
  waiting_all_ = false;
  run_steps();
}

void SenderInstance::issue_batch(int channel, BatchSize batch, int together) {
  Channel& ch = channels_[channel];
  const Exchange& x = run_.exchange();
  const bool compressed = ch.compress && x.lz4_ratio < 1.0;
  Rpc* rpc = new_call(channel, count_batch(run_.stats(), ch, batch));
  rpc->rows = batch.rows;
  rpc->tuple_bytes = batch.tuple_bytes;
  rpc->compressed = compressed;
  rpc->together = together;
  // HEAD allocates an outbound buffer per RPC in flight together; v4.3 alternates
  // between its outbound batches from the second send on (docs/impala.md §2.5).
  ch.sends = static_cast<std::uint8_t>(std::min(ch.sends + 1, kSendsCounted));
  const int used = context_.policy.sender_layout == SenderLayout::kV43
                       ? std::min<int>(outbound_buffers_per_channel(context_.policy), ch.sends)
                       : window_.in_flight(channel);
  // At HEAD a hash channel's collector trades its batch for a free outbound
  // buffer: one never used before leaves it empty until rows arrive after
  // this send (those routed already, ch.filling, have), and a batch sent
  // from such a collector had grown it.
  const bool empty_before = ch.collector_empty;
  ch.collector_empty = false;
  if (used > ch.outbound_used) {
    ch.outbound_used = static_cast<std::uint8_t>(used);
    ch.collector_empty = context_.policy.sender_layout == SenderLayout::kHead &&
                         x.send_path() == PartitionKind::kHash && ch.filling.rows == 0;
    note_batch(ch, batch);
  } else if (empty_before) {
    note_batch(ch, batch);
  }
  note_tracked(channel, batch);
  context_.transport->issue(rpc);
}

Bytes SenderInstance::wire_bytes(const Channel& channel, BatchSize batch) const {
  return context_.rates.wire_bytes(payload_bytes(channel, batch.tuple_bytes), batch.rows);
}

Bytes SenderInstance::count_batch(ExchangeStats& stats, const Channel& channel, BatchSize batch) const {
  const Bytes wire = wire_bytes(channel, batch);
  ++stats.rpcs;
  stats.bytes_wire += static_cast<double>(wire);
  stats.bytes_uncompressed += static_cast<double>(uncompressed_bytes(batch));
  return wire;
}

Bytes SenderInstance::eos_wire_bytes() const { return context_.rates.wire_bytes(0, 0); }

Rpc* SenderInstance::new_call(int channel, Bytes wire_bytes) {
  Channel& ch = channels_[channel];
  Rpc* rpc = context_.transport->new_rpc();
  rpc->sender = this;
  rpc->receiver = &run_.receiver(channel);
  rpc->channel = channel;
  rpc->from_host = host_;
  rpc->to_host = ch.host;
  rpc->wire_bytes = wire_bytes;
  window_.open_call(channel);
  if (counts_connection_calls_) ++calls_to_host_[static_cast<std::size_t>(ch.host)];
  ++unknown_;
  return rpc;
}

void SenderInstance::issue_eos_all() {
  for (int c = 0; c < static_cast<int>(channels_.size()); ++c) {
    Rpc* rpc = new_call(c, eos_wire_bytes());
    rpc->eos = true;
    rpc->together = channels_to_host_[static_cast<std::size_t>(channels_[c].host)];  // all at once (plan_final)
    ++run_.stats().eos_rpcs;
    run_.stats().bytes_wire += static_cast<double>(rpc->wire_bytes);
    context_.transport->issue(rpc);
  }
}

void SenderInstance::finish() {
  add_footprint(-footprint_);
  ExchangeStats& stats = run_.stats();
  stats.blocked_ns += blocked_ns_;
  if (middle_end_.rows > middle_start_.rows) {
    const double pace = static_cast<double>(middle_end_.at - middle_start_.at) /
                        static_cast<double>(middle_end_.rows - middle_start_.rows);
    const bool first = stats.middle.senders == 0;
    stats.middle.slowest_ns_per_row = first ? pace : std::max(stats.middle.slowest_ns_per_row, pace);
    stats.middle.fastest_ns_per_row = first ? pace : std::min(stats.middle.fastest_ns_per_row, pace);
    stats.middle.paces_ns_per_row += pace;
    ++stats.middle.senders;
    stats.middle.rows += middle_end_.rows - middle_start_.rows;
    stats.middle.blocked_ns += middle_end_.blocked_ns - middle_start_.blocked_ns;
    for (std::size_t b = 0; b < kBounds; ++b) stats.middle.time_ns[b] += middle_end_.time_ns[b] - middle_start_.time_ns[b];
  }
  for (std::size_t b = 0; b < kBounds; ++b) stats.sender_time_ns[b] += time_by_bound_[b];
  stats.last_sender_done = context_.simulator.now();
  run_.sender_finished(*this);
}

}  // namespace exsim::sim
