// The benchmark exchanges that measure the cache (models/rules/cache_load.h):
// hash exchanges of one sender, so that the working set is one sender's
// buffers, at fan-outs and batch sizes that put it in the cache, far beyond
// it at three fan-outs, and at its knee. Their routing costs fit the cache's
// figures (cache_fit.h); pairs of them at one fan-out, made through agent
// processes, fit the RPC layer's CPU per byte, in the cache and beyond it.
#ifndef EXSIM_TRANSPORT_CALIBRATION_CACHE_BENCHMARKS_H_
#define EXSIM_TRANSPORT_CALIBRATION_CACHE_BENCHMARKS_H_

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "models/rules/cache_load.h"
#include "transport/calibration/benchmark_exchange.h"
#include "transport/calibration/benchmarks.h"
#include "transport/calibration/cache_fit.h"

namespace exsim::transport {

// A point of the cache's measurement: a hash exchange of `channels` channels
// a sender and flat batches of `buffer` bytes, rows of `fixed_bytes` + 16.
struct CachePoint {
  int channels = 3;
  std::int64_t buffer = 16 * 1024;
  int fixed_bytes = 24;
  bool one_sender = true;  // else one a host, three sharing the cache
};

// What a point measured, with the load its senders put on the cache as the
// simulator computes it (this machine's cores sharing one cache).
struct CacheSample {
  CachePoint point;
  std::string scenario;  // the exchange run, as a scenario's JSON
  Sample sample;
  RoutePoint route;       // routing per row (the serialize stage less SerializeParts)
  double call_ns = 0;     // RPC CPU per call, both sides
  double call_bytes = 0;  // bytes on the wire per call
  double fault_bytes_per_row = 0;  // pages the sender faulted in, per row routed
};

// What a hash sender's serialize stage holds beside routing, taken out of the
// routing measured: its per-call part, its copying per row (its copying per
// byte is its own, appended a row at a time, fitted with the routing), and the
// pages it faulted in at the CPU a byte of memory first written costs (the
// simulator charges that memory on its own, CostProfile::fresh_memory_byte_ns;
// left in, a fit would take the benchmark's first fills for routing).
struct SerializeParts {
  double per_call_ns = 0;
  RowAndByteCost copying;
  double fresh_ns_per_byte = 0;
};

// `point`'s exchange with enough rows that every channel fills its buffers six
// times over (at `scale`, at least 1000 rows), and the load its senders put on
// the cache as the simulator computes it (this machine's cores sharing one cache).
struct CachePointRun {
  std::string scenario;
  CacheLoad load;
};
CachePointRun prepare_cache_point(const CachePoint& point, double scale, std::uint64_t seed);

// Runs that exchange in this process; its routing is the serialize stage less `parts`.
CacheSample measure_cache_point(const CachePoint& point, double scale, std::uint64_t seed, const SerializeParts& parts);

// The scenario of `point`'s exchange with `rows` rows.
std::string cache_point_scenario(const CachePoint& point, std::int64_t rows, std::uint64_t seed);

// The points calibrate measures (cached, memory-bound at 12, 48 and 81
// channels, wide rows, the knee), and the pairs among them for the RPC bytes.
const std::vector<CachePoint>& calibration_cache_points();

// One value of each cache figure, partition_rows_per_s, append_bytes_per_s and
// decode_miss_byte_ns, by profile key, from those points (the RPC layer's bytes
// are measured on some of them through agent processes: benchmarks.cpp);
// `measured` gets the points themselves.
std::map<std::string, double> measure_cache_figures(double scale, std::uint64_t seed,
                                                    const std::function<void(const std::string&)>& say,
                                                    const SerializeParts& parts, std::vector<CacheMeasure>& measured);

// Those figures, by profile key, fitted to measured points (one repetition's,
// or their medians over repetitions), with the core's own cache of that size.
std::map<std::string, double> cache_figures_of(const std::vector<CacheMeasure>& points, double core_cache_bytes);

}  // namespace exsim::transport

#endif  // EXSIM_TRANSPORT_CALIBRATION_CACHE_BENCHMARKS_H_
