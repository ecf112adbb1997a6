// One sender instance: a fragment-instance thread feeding an exchange
// (docs/impala.md §§1-3). It takes input batches of 1024 rows from the
// operator below it, routes them to its channels, and sends a channel's batch
// when it is full, with at most `in_flight` RPCs per channel. When the next
// batch's channel has no free slot the whole thread blocks (head-of-line,
// §2.3). At the end it flushes partial batches, waits for every channel,
// sends end-of-stream on all of them and waits again (§2.3).
//
// The thread's work for an input batch is planned as a list of steps (CPU
// work, a send, a wait) and then carried out in simulated time.
#ifndef EXSIM_SIM_EXCHANGE_SENDER_H_
#define EXSIM_SIM_EXCHANGE_SENDER_H_

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <memory>
#include <vector>

#include "models/base/random.h"
#include "models/base/ring_queue.h"
#include "models/base/rounding.h"
#include "models/results/bound.h"
#include "models/rules/sender_memory.h"
#include "models/rules/sizing_policy.h"
#include "models/rules/tracked_strings.h"
#include "models/rules/in_flight_window.h"
#include "sim/exchange/rpc.h"
#include "sim/exchange/scan_feed.h"
#include "sim/exchange/sender_window.h"

namespace exsim::sim {

class ExchangeRun;
struct ExchangeStats;
struct ModelContext;

class SenderInstance final : public EventHandler {
 public:
  static constexpr std::uint64_t kCpuDone = 0, kWake = 1, kScanned = 2;
  SenderInstance(ExchangeRun& run, int index, int host, std::int64_t rows, std::uint64_t seed);

  void start();
  // Everything this sender will send, counted into `counts` with no time
  // simulated: its input batches planned one after another to the end of its
  // stream. Its routing draws come from its own random stream and no plan
  // depends on when a batch goes, so the calls, their rows and bytes are those
  // of the simulation (sim/fast_forward.h). Instead of start(), once.
  void count_sends(ExchangeStats& counts);
  // The receiver has answered one of this sender's calls: the response reaches
  // the sender at `back`. Responses are not events: the sender counts those
  // due by the time it next looks at a channel, and only when it waits for one
  // does it schedule itself for that response (most calls need no event).
  // `parts`: the call's life, for what its waits are given to.
  void on_response_time(const Rpc& rpc, SimTime back, const CallParts& parts);
  // A CPU step has finished (tag kCpuDone), a response it waits for is due
  // (kWake), or its scanner threads have queued the rows it waits for (kScanned).
  void on_event(std::uint64_t tag) override;

  int index() const { return index_; }
  int host() const { return host_; }
  SimTime blocked_ns() const { return blocked_ns_; }
  Bytes peak_bytes() const { return peak_bytes_; }  // largest footprint of this instance's buffers
  // Its peak as Impala's memory tracker counts it (PeakMemoryUsage: its strings
  // alone, models/rules/tracked_strings.h); -1 where the policy's sender layout
  // is not HEAD's, whose strings the rule follows.
  Bytes tracked_peak_bytes() const { return tracked_ ? tracked_->peak() : -1; }
  // The room its buffers have grown to, and the outbound buffers it has
  // allocated: each only grows, so while both stay the same its footprint does.
  Bytes buffer_rooms() const;
  int outbound_buffers() const;

 private:
  // A call whose response time is known, until the thread sees its response
  // (retire). Held in a pool per sender as a list per channel: at the end of a
  // stream every channel holds one, and a small vector for each of millions
  // of channels would outweigh the calls themselves.
  struct Answered {
    SimTime back;
    CallParts parts;
    int next;  // the channel's next answered call in answered_, -1 at its end
  };
  // What a trace draws of an answered call, beside it (only when tracing).
  struct AnsweredSpan {
    SimTime issued;
    std::int64_t rows;
    Bytes wire;
  };
  // Answers to calls on channels the thread will not look at again before it
  // waits for every channel: those it has flushed, and the end-of-stream calls
  // (plan_final). It waits for the latest of them and goes on once all are
  // back, so it keeps how many and that one, not one answer per channel. (Not
  // when tracing: a trace draws each call when the thread retires it.)
  struct FinalAnswers {
    int count = 0;
    int channel = -1;  // the latest's: the first channel among answers at the same moment
    SimTime back = -1;
    CallParts parts;
  };
  // A channel's lifecycle: filling its batch; sending (RPCs in flight); after
  // end-of-stream, done. The filling batch only exists for hash senders.
  struct Channel {  // channel c goes to receiver instance c
    int answered = -1;      // its answered calls' list in answered_, -1 if none
    int host = 0;
    // Small counts: at most an outbound buffer per call in flight and one more (64 + 1).
    std::uint8_t outbound_used = 0;     // outbound buffers allocated so far
    std::uint8_t outbound_counted = 0;  // outbound buffers its bytes were last counted with
    std::uint8_t sends = 0;             // batches sent so far, up to kSendsCounted
    bool local = false;                 // destination in this sender's process
    bool compress = false;              // LZ4 on batches to this channel
    bool holds = false;                 // its buffers hold bytes (counted in the footprint)
    // HEAD hash: the collector got a never-used outbound buffer in exchange
    // for its batch and has held no row since (channel_buffer_bytes); and
    // what its bytes were last counted with.
    bool collector_empty = false;
    bool collector_empty_counted = false;
    BatchSize filling;      // hash: rows waiting in the collector
    BufferRoom room;        // of each of this channel's buffers (their bytes: channel_buffer_bytes)
    BatchSize largest;      // the largest rows and bytes noted, each: a batch within both grows nothing
  };
  // Millions of channels at scale: keep it small.
  static_assert(sizeof(Channel) <= 72);
  // Sends counted on a channel: enough to know how many outbound buffers it uses.
  static constexpr int kSendsCounted = 255;
  struct Step {
    enum class Kind : std::uint8_t { kCpu, kSend, kFlush, kWaitAll, kEos, kNextBatch, kDone };
    Kind kind;
    int channel = 0;
    SimTime work = 0;  // all of a CPU step; of which LZ4 and the calls' own CPU (for traces)
    SimTime compress = 0, call = 0;
    BatchSize batch;
    SimTime produce = 0;  // of which the operator producing the rows (for what bounds the thread)
    bool call_due = false;  // a send whose call's own CPU is yet to be spent
    int together = 1;       // a send: this thread's calls on its connection with it (call_cpu)
    static Step cpu(SimTime work, SimTime compress = 0, SimTime call = 0, SimTime produce = 0) {
      return {Kind::kCpu, 0, work, compress, call, {}, produce};
    }
    // A send owes the call's own CPU, which the thread spends once the
    // channel's window has room, before the call leaves (call_cpu, then).
    static Step send(int channel, BatchSize batch) { return {Kind::kSend, channel, 0, 0, 0, batch, 0, true}; }
    static Step of(Kind kind) { return {kind, 0, 0, 0, 0, {}, 0}; }
    // The final flush of the partial batches of channels from `channel` on.
    static Step flush_from(int channel) { return {Kind::kFlush, channel, 0, 0, 0, {}, 0}; }
  };
  struct Fill {
    double at;  // fraction of the input batch processed when the channel fills
    int channel;
    BatchSize batch;
  };

  void plan_next();
  // Notes the thread's times at the middle's ends (SenderWindow).
  void mark_middle();
  void plan_hash(std::int64_t rows, Bytes tuple_bytes);
  void order_fills();
  void plan_broadcast(std::int64_t rows, Bytes tuple_bytes);
  void plan_round_robin(std::int64_t rows, Bytes tuple_bytes);
  void plan_final();
  // At a flush step: plans the next partial batch's CPU and send before it,
  // false when none is left.
  bool plan_flush();
  void pay_fresh_memory();
  void run_steps();
  void finish();
  // Counts the channel's responses due by now as arrived.
  void retire(int channel);
  // Every channel's; the final answers together, once no call is left out.
  void retire_all();
  // An answered call kept until the thread sees its response.
  void keep_answered(const Rpc& rpc, SimTime back, const CallParts& parts);
  void note_response_due(int host, SimTime back);  // a call to `host` answered, its response back then
  // Calls f(channel) for each channel whose list is not empty, lowest first
  // (f may empty the list).
  template <typename F>
  void for_each_listed(F f) const {
    for (std::size_t w = 0; w < listing_.size(); ++w) {
      for (std::uint64_t bits = listing_[w]; bits != 0; bits &= bits - 1) {
        f(static_cast<int>(w * 64 + static_cast<std::size_t>(std::countr_zero(bits))));
      }
    }
  }
  // Schedules the wake for what the thread waits on, once that response time is known.
  void schedule_wake();
  void unblock();
  // Starts a CPU step on the host's cores.
  void start_cpu(const Step& step);
  // Gives the wait since the last mark to the parts of the call it waited for
  // (wake_parts_), latest first: the wake-up, the way back, the receiver...
  void attribute_wait();
  void add_time(Bound bound, SimTime ns) { time_by_bound_[static_cast<std::size_t>(bound)] += ns; }

  // LZ4 on the sender thread of a batch to `channel` (0 if it does not
  // compress). Adds it to the stage totals.
  SimTime compress_cpu(const Channel& channel, BatchSize batch);
  double compress_ns(const Channel& channel, BatchSize batch) const;  // the same, not counted
  // The CPU step before a send takes the send's call CPU along when the
  // channel has room already (no event of its own for the call).
  void take_call_along(Step& cpu);
  // LZ4 output is kept only if smaller (outbound-row-batch.cc:76-82). Inline:
  // counting a long exchange asks it of every batch sealed.
  Bytes payload_bytes(const Channel& channel, Bytes tuple_bytes) const {
    return channel.compress && lz4_ratio_ < 1.0 ? ceil_to_int(lz4_ratio_ * static_cast<double>(tuple_bytes))
                                                : tuple_bytes;
  }
  // The sender's side of one call carrying `batch` to `channel` (end-of-stream:
  // an empty batch), as the thread spends it now: among `own_on_connection`
  // of this thread's calls on the connection, itself included.
  SimTime call_cpu(const Channel& channel, BatchSize batch, int own_on_connection);
  // The same for the call of `send` about to leave now; notes in it how many
  // of this thread's calls its connection carries with it.
  SimTime call_cpu_now(Step& send) {
    const Channel& channel = channels_[static_cast<std::size_t>(send.channel)];
    send.together = counts_connection_calls_ ? on_connection_now(channel.host) + 1 : 1;
    return call_cpu(channel, send.batch, send.together);
  }
  // This thread's calls on its connection to `host` now, as its own host's RPC
  // layer holds them: from their issue until their responses are back.
  int on_connection_now(int host);
  std::int64_t rows_to_fill(const Channel& channel, double row_bytes) const;
  // A call on `channel`, counted in flight; its payload is the caller's to fill in.
  Rpc* new_call(int channel, Bytes wire_bytes);
  void issue_batch(int channel, BatchSize batch, int together);
  // A call carrying `batch` to `channel` counted in `stats`; its bytes on the wire.
  Bytes count_batch(ExchangeStats& stats, const Channel& channel, BatchSize batch) const;
  Bytes wire_bytes(const Channel& channel, BatchSize batch) const;
  // What a call carrying `batch` counts uncompressed: its tuple data and offsets.
  static Bytes uncompressed_bytes(BatchSize batch) { return batch.tuple_bytes + 4 * batch.rows; }
  Bytes eos_wire_bytes() const;
  void issue_eos_all();
  // Memory: a channel's buffers grow with the batches they hold and keep their
  // room. Inline, the common case: a batch within the largest noted, with the
  // channel's buffers counted as they are, grows nothing (counting a long
  // exchange notes every batch sealed).
  void note_batch(Channel& ch, BatchSize batch) {
    const int outbound = std::max<int>(ch.outbound_used, hash_ ? 0 : 1);
    const bool counted = ch.holds && outbound == ch.outbound_counted && ch.collector_empty == ch.collector_empty_counted;
    if (counted && batch.rows <= ch.largest.rows && batch.tuple_bytes <= ch.largest.tuple_bytes) return;
    note_new_batch(ch, batch, outbound, counted);
  }
  // The rest of note_batch: a batch larger than any noted, or buffers to count again.
  void note_new_batch(Channel& ch, BatchSize batch, int outbound, bool counted);
  // The sender's shared buffers: the serialization batch (whole-batch kinds)
  // and the LZ4 scratch. Inline, the common case: a hash channel's batch
  // compressed at HEAD touches only the scratch, which it leaves as it was when
  // it fits (lz4_scratch_after), once for every batch a long exchange seals.
  void note_shared(BatchSize batch, bool serialized, bool compressed) {
    if (!serialized && head_layout_ && scratch_bytes_ > 0 && batch.tuple_bytes <= scratch_bytes_) return;
    note_shared_growth(batch, serialized, compressed);
  }
  void note_shared_growth(BatchSize batch, bool serialized, bool compressed);
  // The strings Impala's tracker counts, as `batch` leaves for `channel`.
  void note_tracked(int channel, BatchSize batch);
  void add_footprint(Bytes delta);
  // Traces (when on): the step's CPU split into serialize, compress and send
  // spans in proportion; a channel's track, made on its first call.
  void trace_cpu(const Step& step, SimTime start, SimTime end);
  int channel_track(int channel);

  ExchangeRun& run_;
  ModelContext& context_;
  const int index_;
  const int host_;
  std::int64_t rows_left_;
  const std::int64_t rows_;
  const double lz4_ratio_;  // the exchange's
  const bool hash_;         // the exchange routes rows (send_path kHash) rather than send whole batches
  const bool head_layout_;  // the policy's sender layout is HEAD's (one LZ4 scratch)
  // Whether calls' CPU depends on how many share a connection
  // (CostRates::calls_share): only then are calls_to_host_ and
  // responses_due_ kept.
  const bool counts_connection_calls_;
  SenderMark middle_start_, middle_end_;  // SenderWindow's ends
  std::unique_ptr<ScanFeed> scan_;  // its scanner threads, when they scan apart (mt_dop 0)
  SimTime scan_wait_since_ = 0;     // when the thread began waiting for its scanner threads
  std::int64_t rows_per_step_ = 0;  // rows planned at a time: an input batch, or a group of them (hash)
  double route_ns_per_row_ = 0;     // hash senders: routing a row among its channels' batches
  Random random_;
  std::vector<Channel> channels_;
  std::vector<int> order_;  // broadcast channel order, shuffled once per sender (sender.cc:837-841)
  int next_channel_ = 0;    // random / merge round-robin cursor
  BufferRoom serialization_room_;  // the shared serialization batch (whole-batch kinds)
  Bytes scratch_bytes_ = 0;        // the shared LZ4 scratch
  Bytes shared_footprint_ = 0;
  Bytes footprint_ = 0;
  Bytes peak_bytes_ = 0;
  std::unique_ptr<TrackedStrings> tracked_;  // HEAD's layout only
  ExchangeStats* counting_ = nullptr;  // count_sends: a hash plan counts its batches as it seals them
  Bytes fresh_bytes_ = 0;  // growth of the host's memory by this sender's buffers, not yet paid for

  std::vector<Step> steps_;
  std::size_t step_ = 0;
  std::vector<Answered> answered_;  // every channel's answered calls, and free slots
  std::vector<AnsweredSpan> answered_spans_;  // the same slots' spans, when tracing
  int free_answered_ = -1;          // the free slots' list
  int listed_ = 0;                  // answered calls in the channels' lists
  // A bit per channel whose list is not empty: the channels a retire or a wait
  // for all visits, without touching the rest (at 80 channels a broadcast
  // visiting every channel after each batch spent a tenth of its time there).
  std::vector<std::uint64_t> listing_;
  FinalAnswers final_answers_;
  int final_from_ = 0;  // the channels below it have been flushed: their answers are final
  InFlightWindow window_;  // the calls in flight, per channel (the rule both halves apply)
  std::vector<int> calls_to_host_;  // this instance's calls not yet answered, per destination host
  std::vector<int> channels_to_host_;  // this instance's channels, per destination host
  // Per destination host, when the responses of answered calls get back, soonest first.
  // A queue, not a heap: a response gets back a fixed half RTT after its call
  // is answered, and calls are answered in simulated time's order.
  std::vector<RingQueue<SimTime>> responses_due_;
  int blocked_channel_ = -1;
  SimTime blocked_since_ = 0;
  SimTime blocked_ns_ = 0;
  bool waiting_all_ = false;
  int unknown_ = 0;         // calls in flight whose response time is not known yet
  SimTime wake_at_ = -1;    // the pending wake event, -1 if none
  SimTime wake_for_ = -1;   // the response time it wakes for
  CallParts wake_parts_;    // and that call's life
  SimTime wait_mark_ = 0;   // the wait is given to its causes up to here
  std::array<SimTime, kBounds> time_by_bound_{};
  SimTime cpu_requested_ = 0;  // when the CPU step running asked for a core
  Step cpu_step_ = Step::of(Step::Kind::kDone);  // the CPU step running, and since when
  SimTime cpu_started_ = 0;
  int trace_tid_ = 0;
  std::vector<int> channel_tids_;

  // Scratch for plan_hash, reused to avoid allocation.
  std::vector<Fill> fills_, fills_scratch_;
  std::vector<std::uint32_t> fill_buckets_;
};

}  // namespace exsim::sim

#endif  // EXSIM_SIM_EXCHANGE_SENDER_H_
