// A sender instance's plans: what its thread does for each input batch (the
// CPU of producing, routing, serializing and compressing rows, and the sends),
// by partitioning kind, and at the end of the stream (docs/impala.md §§1-3).
#include <algorithm>
#include <cmath>

#include "models/base/rounding.h"
#include "models/rules/scan_feed.h"
#include "models/rules/sender_memory.h"
#include "sim/exchange/exchange_run.h"
#include "sim/exchange/model_context.h"
#include "sim/exchange/rpc_transport.h"
#include "sim/exchange/sender.h"

namespace exsim::sim {

void SenderInstance::plan_next() {
  steps_.clear();
  step_ = 0;
  if (!counting_) mark_middle();
  if (rows_left_ == 0) {
    plan_final();
    return;
  }
  if (scan_ && !scan_->take()) {
    scan_wait_since_ = context_.simulator.now();  // until on_event(kScanned)
    return;
  }
  const Exchange& x = run_.exchange();
  const std::int64_t rows = std::min(rows_left_, rows_per_step_);
  rows_left_ -= rows;
  context_.rows_produced += rows;
  if (!counting_) run_.note_produced(rows);
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
  pay_fresh_memory();
  steps_.push_back(Step::of(Step::Kind::kNextBatch));
}

void SenderInstance::mark_middle() {
  const std::int64_t produced = rows_ - rows_left_;
  const auto mark = [&](SenderMark& at) { at = {produced, context_.simulator.now(), blocked_ns_, time_by_bound_}; };
  if (middle_start_.rows < 0 && 8 * produced >= kMiddleEighths[0] * rows_) mark(middle_start_);
  if (middle_end_.rows < 0 && 8 * produced >= kMiddleEighths[1] * rows_) mark(middle_end_);
}

// The batches this plan grew wrote pages the process had never held: their
// faults come before the plan's first row is routed (the buffers grow as the
// rows go in, which the plan does not follow row by row).
void SenderInstance::pay_fresh_memory() {
  if (fresh_bytes_ == 0) return;
  const double ns = static_cast<double>(fresh_bytes_) * context_.rates.fresh_ns_per_byte;
  fresh_bytes_ = 0;
  if (ns <= 0) return;
  context_.cpu.serialize += ns * 1e-9;
  steps_.insert(steps_.begin(), Step::cpu(to_ns(ns)));
}

// Work of producing input rows and copying its rows into outbound batches
// `copies` times (0: producing only); a hash sender (`route_ns_per_row`, its
// routing: `appended`) also hashes each row to its channel (docs/impala.md §3.2) and
// its first copy is that append, a row at a time into its channel's batch, at
// its own rate. v4.3 copies every hash row twice: into a RowBatch, then
// serialized (§2.5). `produce` is the producing part, in nanoseconds.
struct BatchCpu {
  SimTime work;
  double produce;
};
struct Routing {
  bool appended = false;
  double ns_per_row = 0;
};
static BatchCpu batch_cpu(ModelContext& context, const Exchange& x, std::int64_t rows, Bytes tuple_bytes,
                          int copies, bool scanned_apart, Routing routing = {}) {
  const CostRates& rates = context.rates;
  const double produce = sender_input_ns(x, rows, scanned_apart);
  const double bytes = static_cast<double>(tuple_bytes);
  const int whole = routing.appended ? copies - 1 : copies;
  const double serialize = whole * bytes * rates.serialize_ns_per_byte +
                           (routing.appended ? bytes * rates.append_ns_per_byte : 0) +
                           copies * static_cast<double>(rows) * rates.serialize_ns_per_row +
                           static_cast<double>(rows) * routing.ns_per_row;
  context.cpu.produce += produce * 1e-9;
  context.cpu.serialize += serialize * 1e-9;
  return {to_ns(produce + serialize), produce};
}

double SenderInstance::compress_ns(const Channel& channel, BatchSize batch) const {
  return channel.compress ? static_cast<double>(batch.tuple_bytes) * context_.rates.compress_ns_per_byte : 0;
}

SimTime SenderInstance::compress_cpu(const Channel& channel, BatchSize batch) {
  const double compress = compress_ns(channel, batch);
  context_.cpu.compress += compress * 1e-9;
  return to_ns(compress);
}

SimTime SenderInstance::call_cpu(const Channel& channel, BatchSize batch, int own_on_connection) {
  // Among the calls on its connection as the thread spends it (ModelContext's
  // CostRates::call_ns): the other senders' calls from this host to the
  // channel's, not yet answered, and this thread's own there (the caller's
  // count, itself included). They go out in one write and their responses
  // come back in one read, as calibrate's calls many in flight on one
  // connection do; calls to other hosts are other sockets, each with its own
  // system calls and wake-ups.
  const auto to = static_cast<std::size_t>(channel.host);
  const int others =
      counts_connection_calls_ ? context_.transport->calls_on_connection(host_, channel.host) - calls_to_host_[to] : 0;
  const int sharing = others + std::max(1, own_on_connection);
  const double rpc =
      context_.rates.call_ns(context_.rates.wire_bytes(payload_bytes(channel, batch.tuple_bytes), batch.rows), sharing,
                             run_.transfer_ns_per_byte(host_));
  // All of it on the sender's timeline; counted as the query's own CPU only the
  // caller's part (ModelContext's CostRates::rpc_caller_cpu).
  const double caller = std::min(rpc, context_.rates.rpc_caller_cpu);
  context_.cpu.call += caller * 1e-9;
  context_.cpu.rpc += (rpc - caller) * 1e-9;
  return to_ns(rpc);
}

std::int64_t SenderInstance::rows_to_fill(const Channel& channel, double row_bytes) const {
  const BatchCapacity& cap = run_.capacity();
  auto rows_until = [&](Bytes limit) {
    return ceil_to_int(static_cast<double>(limit - channel.filling.tuple_bytes) / row_bytes);
  };
  if (cap.rule == CapacityRule::kFixedLen) {
    // The hard cap binds only when the rows left would pass it: when they
    // clearly do not (a margin far above the division's rounding), the
    // quotient's ceiling is at least those rows, and the division is skipped
    // (a division per batch sealed: with the scratch check in note_shared it
    // took a third of counting the production scenario's 16K shuffle).
    const std::int64_t rows = cap.rows - channel.filling.rows;
    const double room = static_cast<double>(kBatchHardCap - channel.filling.tuple_bytes);
    if (rows >= 1 && static_cast<double>(rows) * row_bytes * (1 + 1e-9) < room) return rows;
  }
  std::int64_t need = rows_until(kBatchHardCap);
  need = std::min(need, cap.rule == CapacityRule::kFixedLen
                            ? cap.rows - channel.filling.rows
                            : std::max(rows_until(cap.target), cap.least_rows - channel.filling.rows));
  return std::max<std::int64_t>(1, need);
}

void SenderInstance::plan_hash(std::int64_t rows, Bytes tuple_bytes) {
  const Exchange& x = run_.exchange();
  // The rows and var-len bytes each channel gets, drawn channel by channel as
  // its batches are sealed (row_router.h).
  HashSplitter::Draws routed = run_.splitter().draws(rows);
  ProportionalParts varlen(tuple_bytes - rows * x.row.fixed_bytes, rows);
  fills_.clear();
  // Counting, the batches sealed are summed here and added to the counts once:
  // whole numbers of calls and bytes, whose sums are the same either way (below
  // 2^53 bytes), and the LZ4 CPU added in the same order as one by one.
  std::int64_t sealed_calls = 0, sealed_rows = 0;
  Bytes sealed_wire = 0, sealed_uncompressed = 0;
  double compress_s = context_.cpu.compress;
  for (std::size_t c = 0; c < channels_.size(); ++c) {
    const std::int64_t k = routed.next(random_);
    const Bytes varlen_bytes = varlen.next(k);
    if (k == 0) continue;
    Channel& ch = channels_[c];
    const Bytes chunk = k * x.row.fixed_bytes + varlen_bytes;
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
      if (ch.compress) note_shared(sealed, /*serialized=*/false, /*compressed=*/true);  // compressed as it is sealed
      if (counting_) {
        compress_s += compress_ns(ch, sealed) * 1e-9;  // as compress_cpu would, for the count's CPU
        ++sealed_calls;
        sealed_rows += sealed.rows;
        sealed_wire += wire_bytes(ch, sealed);
        sealed_uncompressed += uncompressed_bytes(sealed);
        continue;
      }
      fills_.push_back({static_cast<double>(taken) / static_cast<double>(k), static_cast<int>(c), sealed});
    }
    ch.filling.rows += k - taken;
    ch.filling.tuple_bytes += chunk - taken_bytes;
    ch.collector_empty = false;  // rows reached its collector after its last send
    note_batch(ch, ch.filling);
  }
  if (counting_) {  // no steps: nothing is simulated
    context_.cpu.compress = compress_s;
    counting_->rpcs += sealed_calls;
    counting_->rows_delivered += sealed_rows;
    counting_->bytes_wire += static_cast<double>(sealed_wire);
    counting_->bytes_uncompressed += static_cast<double>(sealed_uncompressed);
    return;
  }
  order_fills();
  const int copies = context_.policy.sender_layout == SenderLayout::kV43 ? 2 : 1;
  const BatchCpu cpu = batch_cpu(context_, x, rows, tuple_bytes, copies, scan_ != nullptr, {true, route_ns_per_row_});
  const double work = static_cast<double>(cpu.work);
  double done = 0;
  for (const Fill& fill : fills_) {
    const SimTime compress = compress_cpu(channels_[fill.channel], fill.batch);
    steps_.push_back(Step::cpu(to_ns((fill.at - done) * work) + compress, compress, 0,
                               to_ns((fill.at - done) * cpu.produce)));
    steps_.push_back(Step::send(fill.channel, fill.batch));
    done = fill.at;
  }
  steps_.push_back(Step::cpu(to_ns((1 - done) * work), 0, 0, to_ns((1 - done) * cpu.produce)));
}

// Puts fills_ in the order the thread reaches them: by `at`, then by channel.
// Counting them into buckets of `at` (in (0, 1]) leaves an insertion sort only
// the disorder within a bucket to undo, where std::sort's comparisons went
// either way at random. The order is the same: the comparison is a total order.
void SenderInstance::order_fills() {
  constexpr std::size_t kBuckets = 256;
  const auto bucket = [](const Fill& fill) {
    return std::min(kBuckets - 1, static_cast<std::size_t>(fill.at * static_cast<double>(kBuckets)));
  };
  fill_buckets_.assign(kBuckets + 1, 0);
  for (const Fill& fill : fills_) ++fill_buckets_[bucket(fill) + 1];
  for (std::size_t b = 1; b <= kBuckets; ++b) fill_buckets_[b] += fill_buckets_[b - 1];
  fills_scratch_.resize(fills_.size());
  for (const Fill& fill : fills_) fills_scratch_[fill_buckets_[bucket(fill)]++] = fill;
  const auto before = [](const Fill& a, const Fill& b) { return a.at < b.at || (a.at == b.at && a.channel < b.channel); };
  for (std::size_t i = 1; i < fills_scratch_.size(); ++i) {
    const Fill fill = fills_scratch_[i];
    std::size_t j = i;
    for (; j > 0 && before(fill, fills_scratch_[j - 1]); --j) fills_scratch_[j] = fills_scratch_[j - 1];
    fills_scratch_[j] = fill;
  }
  fills_.swap(fills_scratch_);
}

void SenderInstance::plan_broadcast(std::int64_t rows, Bytes tuple_bytes) {
  const Exchange& x = run_.exchange();
  const BatchSize batch{rows, tuple_bytes};
  const SimTime work = batch_cpu(context_, x, rows, tuple_bytes, 0, scan_ != nullptr).work;  // produce only; serialization below
  const auto serialize = [&] {
    double ns = context_.rates.serialize_ns(rows, tuple_bytes);
    context_.cpu.serialize += ns * 1e-9;
    return to_ns(ns);
  };
  if (context_.policy.broadcast_serialize == BroadcastSerialize::kOnce) {
    // Serialized (and compressed) once; every channel sends the same payload (docs/impala.md §3.1).
    note_shared(batch, /*serialized=*/true, channels_[order_[0]].compress);
    const SimTime compress = compress_cpu(channels_[order_[0]], batch);
    steps_.push_back(Step::cpu(work + serialize() + compress, compress, 0, work));
    // Each call's own CPU, its payload (the same bytes) included.
    for (int c : order_) steps_.push_back(Step::send(c, batch));
    return;
  }
  // per_channel: the IMPALA-6041 regression serializes once per destination.
  steps_.push_back(Step::cpu(work, 0, 0, work));
  for (int c : order_) {
    note_shared(batch, /*serialized=*/true, channels_[c].compress);
    note_batch(channels_[c], batch);
    const SimTime compress = compress_cpu(channels_[c], batch);
    steps_.push_back(Step::cpu(serialize() + compress, compress));
    steps_.push_back(Step::send(c, batch));
  }
}

void SenderInstance::plan_round_robin(std::int64_t rows, Bytes tuple_bytes) {
  // Whole input batches, one channel after another (docs/impala.md §3.3).
  const BatchSize batch{rows, tuple_bytes};
  const int c = next_channel_;
  next_channel_ = (next_channel_ + 1) % static_cast<int>(channels_.size());
  note_shared(batch, /*serialized=*/true, channels_[c].compress);
  note_batch(channels_[c], batch);
  const SimTime compress = compress_cpu(channels_[c], batch);
  const BatchCpu cpu = batch_cpu(context_, run_.exchange(), rows, tuple_bytes, 1, scan_ != nullptr);
  steps_.push_back(Step::cpu(cpu.work + compress, compress, 0, to_ns(cpu.produce)));
  steps_.push_back(Step::send(c, batch));
}

void SenderInstance::plan_final() {
  // FlushFinal (sender.cc:1297-1323): last partial batches, wait for all
  // channels, end-of-stream on all of them in parallel, wait again. The
  // partial batches are planned a channel at a time as the thread reaches
  // them (plan_flush): with thousands of channels, every sender's plan at
  // once would outweigh the rest of the run's memory.
  // Their LZ4 is counted in the stage totals now, as the plan is made
  // (compress_cpu): the run's progress marks read those totals.
  for (const Channel& ch : channels_) {
    if (ch.filling.rows > 0) context_.cpu.compress += compress_ns(ch, ch.filling) * 1e-9;
  }
  steps_.push_back(Step::flush_from(0));
  steps_.push_back(Step::of(Step::Kind::kWaitAll));
  // After the wait nothing is in flight: each host's end-of-stream calls go
  // out together on its connection.
  SimTime eos_cpu = 0;
  for (const Channel& ch : channels_) {
    eos_cpu += call_cpu(ch, BatchSize{}, channels_to_host_[static_cast<std::size_t>(ch.host)]);
  }
  steps_.push_back(Step::cpu(eos_cpu, 0, eos_cpu));
  steps_.push_back(Step::of(Step::Kind::kEos));
  steps_.push_back(Step::of(Step::Kind::kWaitAll));
  steps_.push_back(Step::of(Step::Kind::kDone));
}

bool SenderInstance::plan_flush() {
  Step& flush = steps_[step_];
  auto c = static_cast<std::size_t>(flush.channel);
  while (c < channels_.size() && channels_[c].filling.rows == 0) ++c;
  if (!context_.trace) final_from_ = static_cast<int>(c);  // the thread looks at no channel before it again
  if (c == channels_.size()) return false;
  flush.channel = static_cast<int>(c) + 1;
  Channel& ch = channels_[c];
  const SimTime compress = to_ns(compress_ns(ch, ch.filling));  // counted in plan_final
  const std::array<Step, 2> batch{Step::cpu(compress, compress), Step::send(static_cast<int>(c), ch.filling)};
  // Compressed through the LZ4 scratch as any batch: a sender whose channels
  // only ever send their final batch has one too.
  if (ch.compress) note_shared(ch.filling, /*serialized=*/false, /*compressed=*/true);
  ch.filling = {};
  // Its two steps go before the flush step, so that a thread's plan keeps a
  // batch at a time: in the places of the last batch's, done, rather than
  // moving the plan's steps for every channel (millions at scale); the first
  // time, in front of the steps left.
  if (step_ >= batch.size()) {
    step_ -= batch.size();
    std::copy(batch.begin(), batch.end(), steps_.begin() + static_cast<std::ptrdiff_t>(step_));
  } else {
    steps_.erase(steps_.begin(), steps_.begin() + static_cast<std::ptrdiff_t>(step_));
    step_ = 0;
    steps_.insert(steps_.begin(), batch.begin(), batch.end());
  }
  return true;
}

void SenderInstance::count_sends(ExchangeStats& counts) {
  scan_.reset();  // the scanner threads only decide when a batch can be planned
  counting_ = &counts;
  while (true) {
    plan_next();
    for (step_ = 0; step_ < steps_.size(); ++step_) {
      // A flush step plans its next partial batch before itself, here the step to count.
      if (steps_[step_].kind == Step::Kind::kFlush) plan_flush();
      const Step& step = steps_[step_];
      switch (step.kind) {
        case Step::Kind::kSend:
          count_batch(counts, channels_[static_cast<std::size_t>(step.channel)], step.batch);
          counts.rows_delivered += step.batch.rows;
          break;
        case Step::Kind::kEos:
          counts.eos_rpcs += static_cast<std::int64_t>(channels_.size());
          counts.bytes_wire += static_cast<double>(eos_wire_bytes()) * static_cast<double>(channels_.size());
          break;
        case Step::Kind::kDone:
          return;
        default:
          break;
      }
    }
  }
}

}  // namespace exsim::sim
