// What every part of one simulated run shares: the engine, the resources, the
// policy and costs, and the accounting. One per (scenario, policy) run.
#ifndef EXSIM_SIM_EXCHANGE_MODEL_CONTEXT_H_
#define EXSIM_SIM_EXCHANGE_MODEL_CONTEXT_H_

#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

#include "models/base/histogram.h"
#include "models/base/rounding.h"
#include "models/results/results.h"
#include "models/results/trace.h"
#include "models/rules/cache_load.h"
#include "models/scenario/scenario.h"
#include "sim/engine/simulator.h"
#include "sim/resources/cpu_pool.h"
#include "sim/resources/network.h"

namespace exsim::sim {

// Costs turned into nanoseconds of CPU per byte, row or call.
struct CostRates {
  explicit CostRates(const CostProfile& costs);
  double serialize_ns_per_byte;
  double deserialize_ns_per_byte;
  double serialize_ns_per_row;
  double deserialize_ns_per_row;
  double deserialize_ns_per_batch;
  double compress_ns_per_byte;
  double decompress_ns_per_byte;
  SimTime rpc_cpu;
  double rpc_cpu_busy;          // ns, with many calls in flight on the connection
  double rpc_cpu_queued;        // ns, of a call that waited for its receiver's service thread; < 0: none
  double rpc_caller_cpu;        // ns, of a sending side's per-call CPU, on the sender's own thread
  double transfer_ns_per_byte;  // each side, per byte on the wire
  double partition_ns_per_row;  // hash senders, per row routed, batches in the cache
  double append_ns_per_byte;    // hash senders, per byte appended to a channel's batch in the cache
  // The cache (models/rules/cache_load.h).
  double cache_bytes;
  double prefetch_streams;
  double prefetched_miss_share;
  double cache_miss_row_ns;
  double cache_miss_byte_ns;
  double core_cache_bytes;
  double core_miss_ns_per_byte;
  double transfer_miss_ns_per_byte;  // each side, per byte on the wire, of a batch evicted
  double decode_miss_ns_per_byte;    // per byte deserialized, of a batch evicted
  double fresh_ns_per_byte;          // memory taken from the kernel for the first time (MemoryLedger)
  SimTime rpc_latency;
  SimTime sender_wake;  // a blocked sender thread, from the response it waits for to running
  Bytes wire_overhead;

  // A TransmitData call's bytes on the wire: its payload (tuple data, LZ4'd
  // or not), 4 B of offset per row (row-batch.cc), and the framing.
  // Serializing, or deserializing, `rows` rows of `tuple_bytes` bytes.
  double serialize_ns(std::int64_t rows, Bytes tuple_bytes) const {
    return static_cast<double>(tuple_bytes) * serialize_ns_per_byte + static_cast<double>(rows) * serialize_ns_per_row;
  }
  // A received batch's: per byte, per row, and per batch.
  double deserialize_ns(std::int64_t rows, Bytes tuple_bytes) const {
    return static_cast<double>(tuple_bytes) * deserialize_ns_per_byte +
           static_cast<double>(rows) * deserialize_ns_per_row + deserialize_ns_per_batch;
  }
  // A hash sender's routing per row of `row_bytes` under the load its
  // exchange's senders put on their caches, beyond appending its bytes: in
  // the cache, the lines its own buffers evicted from its core's cache, and
  // the misses of those evicted from the shared cache since their buffer was
  // last filled.
  double route_ns_per_row(const CacheLoad& load, double row_bytes) const {
    return partition_ns_per_row +
           evicted_share(load.own_working_set, core_cache_bytes) * core_miss_ns_per_byte * row_bytes +
           evicted_share(load.working_set, cache_bytes) *
               exposed_share(load.streams, prefetch_streams, prefetched_miss_share) *
               (cache_miss_row_ns + cache_miss_byte_ns * row_bytes);
  }
  // Each side's CPU per byte on the wire of a call whose batch is under that load.
  double transfer_ns_per_byte_at(const CacheLoad& load) const {
    return transfer_ns_per_byte + evicted_share(load.working_set, cache_bytes) * transfer_miss_ns_per_byte;
  }
  // A receiver's extra CPU per byte it deserializes under that load.
  double decode_miss_ns_per_byte_at(const CacheLoad& load) const {
    return evicted_share(load.working_set, cache_bytes) * decode_miss_ns_per_byte;
  }
  Bytes wire_bytes(Bytes payload, std::int64_t rows) const { return payload + 4 * rows + wire_overhead; }
  // CPU of one side of a call of `wire` bytes among `sharing` calls in flight
  // on its connection: per call (shared system calls and wake-ups make it fall
  // from rpc_cpu alone towards rpc_cpu_busy), and per byte on the wire (each
  // side pays both), `ns_per_byte` (transfer_ns_per_byte_at).
  double call_ns(Bytes wire, int sharing, double ns_per_byte) const {
    // (With rpc_cpu_busy at rpc_cpu, the share adds 0 / sharing: none, exactly.)
    const double per_call = rpc_cpu_busy + (static_cast<double>(rpc_cpu) - rpc_cpu_busy) / std::max(1, sharing);
    return per_call + static_cast<double>(wire) * ns_per_byte;
  }
  // Whether a call's CPU depends on how many share its connection: not
  // when the profile has no rpc_cpu_busy_us (nor one at rpc_cpu_us), and
  // then nobody need count them (SenderInstance keeps its calls' response
  // times per host for that alone: a sixth of 135 hosts' simulation).
  bool calls_share() const { return rpc_cpu_busy != static_cast<double>(rpc_cpu); }
  // The receiving side of a call: as call_ns, unless it waited for the host's
  // service thread, which then took it busy, without sleeping between
  // (rpc_cpu_queued, when the profile has it).
  double received_call_ns(Bytes wire, int sharing, double ns_per_byte, bool waited) const {
    if (waited && rpc_cpu_queued >= 0) return rpc_cpu_queued + static_cast<double>(wire) * ns_per_byte;
    return call_ns(wire, sharing, ns_per_byte);
  }
};

[[noreturn]] void step_out_of_range(double ns);
// Nanoseconds of a step; one beyond about 146 years (or not a number, from
// absurd rates) stops the run rather than wrap the clock.
inline SimTime to_ns(double ns) {
  if (!(ns < 4.6e18 && ns > -4.6e18)) [[unlikely]] step_out_of_range(ns);
  return round_half_away(ns);
}

// Sender and receiver buffer bytes per host over simulated time. Each change
// returns the bytes by which it raised the host's high-water mark (its senders'
// and receivers' together): memory the process takes from the kernel for the
// first time, whose pages fault in as they are written (CostRates::fresh_ns).
class MemoryLedger {
 public:
  explicit MemoryLedger(int hosts)
      : sender_now_(hosts), sender_peak_(hosts), receiver_now_(hosts), receiver_peak_(hosts), held_peak_(hosts) {}
  Bytes add_sender(int host, Bytes delta) {
    track(sender_now_[host], sender_peak_[host], delta);
    return raise_held_peak(host);
  }
  Bytes add_receiver(int host, Bytes delta) {
    track(receiver_now_[host], receiver_peak_[host], delta);
    return raise_held_peak(host);
  }
  Bytes sender_now(int host) const { return sender_now_[host]; }
  Bytes sender_peak(int host) const { return sender_peak_[host]; }
  Bytes receiver_peak(int host) const { return receiver_peak_[host]; }

  // The high-water marks, per host: what a run started from them sees (an
  // exchange simulated apart, sim/alone_runs.h).
  struct Peaks {
    std::vector<Bytes> sender, receiver, held;
    bool operator==(const Peaks&) const = default;
  };
  Peaks peaks() const { return {sender_peak_, receiver_peak_, held_peak_}; }
  void set_peaks(const Peaks& peaks) {
    sender_peak_ = peaks.sender;
    receiver_peak_ = peaks.receiver;
    held_peak_ = peaks.held;
  }
  // No buffer held on any host.
  bool idle() const {
    for (std::size_t h = 0; h < sender_now_.size(); ++h) {
      if (sender_now_[h] != 0 || receiver_now_[h] != 0) return false;
    }
    return true;
  }

 private:
  static void track(Bytes& now, Bytes& peak, Bytes delta) {
    now += delta;
    if (now > peak) peak = now;
  }
  // The host's senders' and receivers' bytes together past their peak so far: by how much.
  Bytes raise_held_peak(int host) {
    const Bytes held = sender_now_[host] + receiver_now_[host];
    const Bytes raised = std::max<Bytes>(0, held - held_peak_[host]);
    held_peak_[host] += raised;
    return raised;
  }
  std::vector<Bytes> sender_now_, sender_peak_, receiver_now_, receiver_peak_, held_peak_;
};

class RpcTransport;

struct ModelContext {
  ModelContext(const Scenario& scenario, const Policy& policy, std::unique_ptr<Scheduler> scheduler);
  ~ModelContext();

  const Scenario& scenario;
  const Policy& policy;
  const CostRates rates;
  Simulator simulator;
  // One pool per host, or one shared by all hosts when the profile sets `cores`.
  std::vector<std::unique_ptr<CpuPool>> pools;
  std::vector<CpuPool*> cpu_of_host;
  Network network;
  MemoryLedger memory;
  std::unique_ptr<RpcTransport> transport;

  // Accounting shared by every exchange.
  CpuByStage cpu;
  LogHistogram rpc_network_ns;
  LogHistogram rpc_receiver_ns;  // from a call's arrival to its response
  LogHistogram sender_wake_ns;   // a blocked sender's, from the response it waited for to running
  std::int64_t rows_produced = 0;  // input rows the senders have taken, over all runs

  // Tracing, when on (SimulateOptions::trace): the trace, the process id of
  // host 0 and the names' prefix (the policy), and the query now running.
  Trace* trace = nullptr;
  int trace_pid_base = 0;
  std::string trace_prefix;
  std::string query;
  // A new track on `host`'s process; 0 when tracing is off.
  int trace_track(int host, const std::string& name);
  int trace_pid(int host) const { return trace_pid_base + host; }

  Nanos rtt(int from, int to) const { return scenario.cluster.rtt.rtt(from, to); }
  CpuPool& cpu_pool(int host) { return *cpu_of_host[static_cast<std::size_t>(host)]; }
};

}  // namespace exsim::sim

#endif  // EXSIM_SIM_EXCHANGE_MODEL_CONTEXT_H_
