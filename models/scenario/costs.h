// What each unit of work costs on the machines being modelled. A scenario
// names a profile (or inlines one); without one, profiles/reference.json.
#ifndef EXSIM_MODELS_SCENARIO_COSTS_H_
#define EXSIM_MODELS_SCENARIO_COSTS_H_

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "models/base/size.h"

namespace exsim {

// How one measured figure varied over its repetitions.
struct FigureSpread {
  double median = 0, min = 0, max = 0;
  bool operator==(const FigureSpread&) const = default;
};

struct CostProfile {
  double serialize_bytes_per_s = 0;       // copy rows into an outbound batch
  double deserialize_bytes_per_s = 0;     // RowBatch::Deserialize, per uncompressed byte
  // The same per row, beyond its bytes: Serialize walks the batch tuple by
  // tuple and Deserialize turns every tuple's offset back into a pointer
  // (row-batch.cc). Per byte alone, a rate measured on narrow rows makes wide
  // ones too slow (IMPALA-6041's 534 B rows, 60%) and the reverse. 0: none.
  double serialize_row_ns = 0;
  double deserialize_row_ns = 0;
  // And per received batch, beyond its rows and bytes: RowBatch::FromProtobuf
  // allocates the batch's buffers from the buffer pool, rounded up to a power
  // of two (row-batch.cc:176-249), per call, whatever its size. 0: none.
  double deserialize_batch_us = 0;
  double lz4_compress_bytes_per_s = 0;    // per uncompressed byte
  double lz4_decompress_bytes_per_s = 0;  // per uncompressed byte
  double rpc_cpu_us = 0;                  // CPU per RPC on each side, beyond the byte costs
  // The same with many calls in flight on the connection, which share system
  // calls and wake-ups: a call among k in flight costs busy + (rpc_cpu_us - busy) / k.
  // < 0: rpc_cpu_us whatever k (no sharing).
  double rpc_cpu_busy_us = -1;
  // Of a call that waited for its receiver's service thread, the receiving
  // side's CPU beyond its bytes, in place of the share above: the thread,
  // busy with the calls before it, reads it without going to sleep and being
  // woken, and so do the threads it hands the call to. Measured on calls a
  // CPU-bound exchange makes back to back. < 0: none (shared as any other call).
  double rpc_cpu_queued_us = -1;
  // Of rpc_cpu_us on the sending side, the part on the sending query's own
  // thread: building the request and queueing it to a reactor, and being woken
  // when it completes (Kudu's Proxy::AsyncRequest, krpc-data-stream-sender.cc's
  // DoTransmitDataRpc and WaitForRpc). The rest, the bytes' CPU and the whole
  // receiving side run on the RPC layer's reactor and service threads, which a
  // query's TotalCpuTime does not count. The simulated time is the same either
  // way; 0: none of it on the query's thread.
  double rpc_caller_cpu_us = 0;
  double rpc_latency_us = 0;              // software latency per RPC, beyond the RTT
  // A sender thread blocked on its channel runs again this long after the
  // response arrives: the reactor thread's callback frees the channel and
  // notifies a condition variable, and the kernel wakes the thread
  // (krpc-data-stream-sender.cc:437-469, :513-555). Neither RpcNetworkTime nor
  // RpcRecvrTime contains it, yet every round of a latency-bound channel does. 0: none.
  double sender_wake_us = 0;
  double transfer_bytes_per_s = 0;        // CPU per byte on the wire, each side (socket copies); 0: free
  // Hash senders: rows routed to their channel per CPU second (the key's hash
  // modulo the channels, and the bookkeeping of the channel's batch), while the
  // batches being filled stay in the cache; 0: free.
  double partition_rows_per_s = 0;
  // Hash senders: the copy of a row's bytes into its channel's batch while
  // that batch is in the cache, per byte (a row at a time into many batches,
  // where whole-batch senders copy a batch at serialize_bytes_per_s: measured
  // apart, docs/validation.md "Caches"). Beyond the core's own cache a byte
  // costs core_miss_byte_ns more, beyond the shared one cache_miss_byte_ns.
  double append_bytes_per_s = 0;
  // The core's own cache (L2) and what a byte of a routed row costs more when
  // its batch's line has left it for the shared cache: the sender's own
  // buffers, full, evict a share 1 - exp(-W_own / core_cache_bytes) of them
  // (models/rules/cache_load.h). 0 bytes: no such level.
  double core_cache_bytes = 0;
  double core_miss_byte_ns = 0;
  // The host's cache, as a hash sender's routing and the RPC layer's copies
  // meet it (models/rules/cache_load.h): the working set of the senders'
  // buffers evicts from `cache_bytes` (the cache they share; 0: no cache
  // model, every byte at the cached rates) a share 1 - exp(-W / cache_bytes) of
  // a batch's lines before they are written again; of an evicted line, a
  // routed row pays cache_miss_row_ns + cache_miss_byte_ns per byte of the row
  // when the prefetcher cannot follow its channel's stream, and
  // prefetched_miss_share of that when it can: it tracks prefetch_streams
  // streams (0: no prefetcher), all of a sender's s streams when s is at most
  // that, else each with probability prefetch_streams / s. A byte of a call
  // whose batch was evicted costs transfer_miss_byte_ns more on each side.
  double cache_bytes = 0;
  double prefetch_streams = 0;
  double prefetched_miss_share = 1;
  double cache_miss_row_ns = 0;
  double cache_miss_byte_ns = 0;
  double transfer_miss_byte_ns = 0;
  // A received batch's bytes cost this much more to deserialize, times the
  // same evicted share: the call's body and the pooled batch it is decoded into
  // go cold between their uses while the senders' buffers stream through the
  // cache (measured, docs/validation.md, "Many senders, large batches"). 0: none.
  double decode_miss_byte_ns = 0;
  // CPU per byte of memory a host's process takes from the kernel for the first
  // time: the page faults (and the kernel's zeroing) as its buffers are first
  // written. Paid as a host's sender and receiver buffers together grow past
  // their high-water mark: a sender's batches growing to their size, a queue of
  // received batches growing. 0: free.
  double fresh_memory_byte_ns = 0;
  Bytes wire_overhead_bytes = 0;          // framing and headers per RPC
  // Threads that take a host's arriving calls, each a call at a time from the
  // admission check to the response (Impala: datastream_service_num_svc_threads,
  // 0 = one per core, data-stream-service.cc:52-54). 0: one per core of the host
  // (Cluster::cores_per_host).
  int service_threads = 0;
  int cores = 0;  // > 0: every emulated host shares this many cores (one machine)
  std::string source;  // the file it came from, or "inline"
  // How calibrate's repetitions of each figure varied (the profile's "spread"),
  // by key; figures not in it are not known to vary.
  std::map<std::string, FigureSpread> spread;
  bool operator==(const CostProfile&) const = default;
};

// The costs at one end of their uncertainty: every figure of `costs` moved by
// its relative spread (min / median and max / median, applied to the figure as
// the scenario has it) towards cheap work (rates up, times down, more service
// threads) or dear. `relative` > 0 moves every figure by that fraction instead
// (a user's stated uncertainty: a rate times 1 + relative or 1 - relative).
enum class CostCorner { kCheap, kDear };
struct CostFigure;
// One figure's value at the cheap and at the dear end of its uncertainty: its
// spread (relative to the value the scenario has, or where a figure at 0
// could be instead), or `relative` > 0 either way of a value above 0. None
// for a figure that cannot move (the machine, the framing's bytes, no range).
struct FigureEnds {
  double cheap = 0, dear = 0;
};
std::optional<FigureEnds> figure_ends(const CostProfile& costs, const CostFigure& figure, double relative = 0);
CostProfile cost_corner(const CostProfile& costs, CostCorner corner, double relative = 0);
// Whether cost_corner can move anything: a spread, or `relative` > 0.
bool has_cost_uncertainty(const CostProfile& costs, double relative = 0);

// How much slower the machine ran during a measurement than when its costs
// were calibrated, by probes taken around both (1: as fast; below 1: faster):
// `compute` from fixed arithmetic and LZ4, `calls` from round trips between
// two processes on one core (transport/testbed/speed_probe.h, call_probe.h).
struct MachineSlowdown {
  double compute = 1, calls = 1;
  bool none() const { return compute == 1 && calls == 1; }
};
// `costs` on a machine slowed down so: every CPU figure moves by its factor
// (times multiplied, rates divided); the per-call ones (the rpc_ figures and
// sender_wake_us: system calls, wake-ups and switches between processes) by
// `calls`, the rest by `compute`. Sizes, counts, cores and shares stay; so
// does the spread, which figure_ends reads relative to the figure.
CostProfile at_slowdown(const CostProfile& costs, const MachineSlowdown& slowdown);

struct CostFigure;
// Whether `figure` moves with the cost of calls between processes (the per-call
// ones above) rather than with the machine's compute speed.
bool moves_with_calls(const CostFigure& figure);
// `value` of `figure` on a machine `factor` times slower: a time multiplied, a
// rate divided (at least 1 a second); a size, count or share, and a value <= 0
// (free, or none), as it is.
double at_factor(const CostFigure& figure, double value, double factor);

// The median (of the middle two for an even count), least and largest of
// `values`. REQUIRES: values not empty.
FigureSpread spread_of(std::vector<double> values);

class JsonNode;
// A spread written as {"median": m, "min": a, "max": b} at `node` (a profile's
// "spread" entries, a grid's measurements): a < or > m, or another key, is
// recorded in the node's diagnostics with its JSON pointer.
FigureSpread read_figure_spread(const JsonNode& node);

// A costs profile in the spec's format, with each figure's source and spread.
// `warnings`: what the measurement found doubtful (calibrate), kept with it.
std::string cost_profile_json(const CostProfile& profile, const std::string& description,
                              const std::map<std::string, std::string>& sources,
                              const std::map<std::string, FigureSpread>& spread,
                              const std::vector<std::string>& warnings = {});

}  // namespace exsim

#endif  // EXSIM_MODELS_SCENARIO_COSTS_H_
