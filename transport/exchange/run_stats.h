// What one run of the real exchange measured, gathered from every thread of
// every host taking part. Counters are atomic; the histogram and peaks take a lock.
#ifndef EXSIM_TRANSPORT_EXCHANGE_RUN_STATS_H_
#define EXSIM_TRANSPORT_EXCHANGE_RUN_STATS_H_

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "models/base/histogram.h"

namespace exsim::transport {

class TraceRecorder;

// Every call's network and receiver times, and the blocked senders' wake-ups
// (ChannelWindow), in nanoseconds.
struct CallHistograms {
  LogHistogram network_ns, receiver_ns, wake_ns;
  void merge(const CallHistograms& other) {
    network_ns.merge(other.network_ns);
    receiver_ns.merge(other.receiver_ns);
    wake_ns.merge(other.wake_ns);
  }
};

struct RunStats {
  explicit RunStats(int hosts)
      : sender_now(static_cast<std::size_t>(hosts)),
        sender_peak(static_cast<std::size_t>(hosts)),
        receiver_now(static_cast<std::size_t>(hosts)),
        receiver_peak(static_cast<std::size_t>(hosts)) {}

  std::atomic<std::int64_t> rpcs{0}, eos_rpcs{0}, deferred_rpcs{0}, rows_delivered{0};
  std::atomic<std::int64_t> bytes_wire{0}, bytes_uncompressed{0}, payload_compressed_in{0}, payload_compressed_out{0};
  std::atomic<std::int64_t> blocked_ns{0};
  // Thread CPU time by stage, nanoseconds.
  std::atomic<std::int64_t> cpu_produce{0}, cpu_serialize{0}, cpu_compress{0}, cpu_decompress{0}, cpu_deserialize{0},
      cpu_consume{0};
  // Of decompress + deserialize, the part done on a reactor thread (so that the
  // reactor's remaining CPU can be reported as RPC work).
  std::atomic<std::int64_t> cpu_decode_on_reactor{0};
  // Sender threads' CPU outside their stages (thread_cpu.h): handing calls
  // over and waiting for their windows, the calls' work on the query's own
  // threads (stage `call`).
  std::atomic<std::int64_t> cpu_call{0};
  // Consumer threads' CPU outside their stages: RPC work beside the reactor's.
  std::atomic<std::int64_t> cpu_handoff{0};
  // Pages the sender threads faulted in (thread_minor_faults): their buffers'
  // growth, as the kernel served it.
  std::atomic<std::int64_t> sender_minor_faults{0};
  std::atomic<int> peak_in_flight{0};
  // What the senders' time went to (models/results/bound.h, MeasuredSenderTime),
  // nanoseconds: the sender threads' lives, their producing (wall-clock) and
  // wake-ups; the calls' network and receiver times, and how long receivers
  // held calls back; the longest drain of a receiver after its last end of stream.
  std::atomic<std::int64_t> sender_life_ns{0}, produce_wall_ns{0}, wake_sum_ns{0}, network_sum_ns{0},
      receiver_sum_ns{0}, held_ns{0}, max_drain_ns{0};
  // Sender instances, and those whose buffers outgrew the planner's estimate;
  // the largest instance's buffers at their peak.
  std::atomic<std::int64_t> senders{0}, over_estimate{0}, max_over_bytes{0}, max_instance_peak{0};
  // Timeline spans, when the run is traced: the host's recorder and the
  // exchange's name on its tracks ("<query> <exchange>").
  TraceRecorder* trace = nullptr;
  std::string trace_label;

  // A TransmitData call's network time (the whole call less the receiver's)
  // and the receiver's time (arrival to response), as Impala's sender counts them.
  void add_call_times(std::int64_t network_ns, std::int64_t receiver_ns) {
    std::lock_guard lock(mutex_);
    calls.network_ns.add(network_ns);
    calls.receiver_ns.add(receiver_ns);
    network_sum_ns += network_ns;
    receiver_sum_ns += receiver_ns;
  }
  // A sender's wake-ups, when it is done.
  void add_wakes(const LogHistogram& wakes) {
    std::lock_guard lock(mutex_);
    calls.wake_ns.merge(wakes);
    wake_sum_ns += static_cast<std::int64_t>(wakes.mean() * static_cast<double>(wakes.count()));
  }
  void add_drain(std::int64_t ns) {
    std::int64_t seen = max_drain_ns.load();
    while (ns > seen && !max_drain_ns.compare_exchange_weak(seen, ns)) {
    }
  }
  // Sender buffer bytes of a host.
  void add_sender_bytes(int host, std::int64_t delta) { track(sender_now, sender_peak, host_ledger, host, delta); }
  // Receiver queue bytes: batches queued or being deserialized (deserialized
  // size), and the payloads of deferred calls.
  void add_receiver_bytes(int host, std::int64_t delta) {
    track(receiver_now, receiver_peak, receiver_ledger, host, delta);
  }

  // A host's buffers across the exchange runs it takes part in at once.
  struct HostLedger {
    void add(std::int64_t delta) {
      std::lock_guard lock(mutex);
      now += delta;
      if (now > peak) peak = now;
    }
    std::mutex mutex;
    std::int64_t now = 0, peak = 0;
  };
  HostLedger* host_ledger = nullptr;      // sender buffers
  HostLedger* receiver_ledger = nullptr;  // receiver queues
  void fail(const std::string& reason) {
    std::lock_guard lock(mutex_);
    if (error.empty()) error = reason;
    failed = true;
  }
  std::string failure() const {
    std::lock_guard lock(mutex_);
    return error;
  }

  std::atomic<bool> failed{false};
  CallHistograms calls;
  std::vector<std::int64_t> sender_now, sender_peak, receiver_now, receiver_peak;

 private:
  template <typename Ledger>
  void track(std::vector<std::int64_t>& now, std::vector<std::int64_t>& peak, Ledger* ledger, int host,
             std::int64_t delta) {
    std::lock_guard lock(mutex_);
    // Checked: a host beyond the stats' size would write past them silently.
    auto& n = now.at(static_cast<std::size_t>(host));
    n += delta;
    auto& p = peak.at(static_cast<std::size_t>(host));
    if (n > p) p = n;
    if (ledger) ledger->add(delta);
  }

  mutable std::mutex mutex_;
  std::string error;
};

}  // namespace exsim::transport

#endif  // EXSIM_TRANSPORT_EXCHANGE_RUN_STATS_H_
