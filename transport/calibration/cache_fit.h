// The cache's figures (models/rules/cache_load.h) from routing costs measured
// at several working sets and fan-outs: a pure function, so that it can be
// checked on points made from known figures.
//
// Each point is a hash exchange's routing cost per row (its serialize stage
// less its copying per row and the per-call part) with the load its senders
// put on the caches. The model is
//   route(point) = r + a b + E(W_own; C) m_core b + E(W; S) X(s; P, phi) (miss_row + miss_byte b),
// E = 1 - exp(-W/S), X = phi + (1 - phi) max(0, 1 - P/s), b the row's bytes, C
// the core's own cache (given: the machine's). For given S, P and phi it is
// linear in r, a (appending a byte), m_core, miss_row and miss_byte, solved by
// least squares on the relative errors; S, P and phi are searched over their
// physical ranges (S 256 KiB to 4 GiB, P 1 to 1024, phi 0 to 1), coarse to fine.
//
// The RPC layer's bytes: each pair of points at one fan-out and two batch
// sizes gives, from the difference of their RPC CPU per call (the per-call
// part the same in both), the CPU per byte at their two working sets; over
// the pairs, least squares gives the cached rate and the extra of an evicted
// batch.
#ifndef EXSIM_TRANSPORT_CALIBRATION_CACHE_FIT_H_
#define EXSIM_TRANSPORT_CALIBRATION_CACHE_FIT_H_

#include <vector>

namespace exsim::transport {

struct RoutePoint {
  double working_set = 0;  // bytes
  double streams = 0;
  double row_bytes = 0;    // mean tuple bytes a row
  double route_ns = 0;     // measured routing CPU per row
  double own_working_set = 0;  // bytes of one sender's own buffers
};

struct CacheFigures {
  double partition_ns = 0;  // r: a row routed while its batch is in the cache
  double append_byte_ns = 0;  // a: a byte of it appended, in the core's cache
  double core_cache_bytes = 0, core_miss_byte_ns = 0;
  double miss_row_ns = 0, miss_byte_ns = 0;
  double cache_bytes = 0, prefetch_streams = 0, prefetched_share = 0;
  double largest_error = 0;  // of the fit over its points, relative
  // The model's routing cost per row at a point.
  double route_ns(const RoutePoint& p) const;
};

// REQUIRES: at least 8 points, at working sets, fan-outs and row widths that
// pin each figure (calibrate's: cached at two widths, beyond the core's cache
// at two, memory-bound at three fan-outs and two widths, the knee, the level
// far beyond). `core_cache_bytes` 0: no core level (m_core 0).
CacheFigures fit_cache(const std::vector<RoutePoint>& points, double core_cache_bytes);

// What one cache exchange measured: its routing, and its receivers'
// deserialize stage per byte deserialized (tuple data and an 8 B pointer a row).
struct CacheMeasure {
  RoutePoint route;
  double decode_ns_per_byte = 0;
};

// The receivers' extra per byte of an evicted batch: decode = d + m E(W; S) by
// least squares over the points, m at least 0 (0 with fewer than 2 points).
double fit_decode_miss(const std::vector<CacheMeasure>& points, double cache_bytes);

// Each point's median over repetitions (the same points in the same order in
// each): per-repetition fits trade the shared cache's size against the miss
// costs, so their medians figure by figure are not one consistent set, while
// a fit to the points' medians is. REQUIRES: every repetition the same length.
std::vector<CacheMeasure> median_measures(const std::vector<std::vector<CacheMeasure>>& repetitions);

// Two exchanges at one fan-out, smaller and larger batches: RPC CPU per call
// (both sides) and bytes on the wire per call of each, and each one's share of
// evicted batch lines (E above, at the fitted cache).
struct TransferPair {
  double small_call_ns = 0, small_bytes = 0, small_evicted = 0;
  double large_call_ns = 0, large_bytes = 0, large_evicted = 0;
};
struct TransferFigures {
  double ns_per_byte = 0;       // each side, a batch in the cache
  double miss_ns_per_byte = 0;  // each side, more for an evicted one
  // Each side, a call's CPU beyond its bytes: the mean over the four exchanges
  // of what the two figures above leave of their calls. They are CPU-bound and
  // make their calls back to back (CostProfile::rpc_cpu_queued_us).
  double call_ns = 0;
};
// Neither per-byte figure negative: noise that would make the extra so leaves it 0.
TransferFigures fit_transfer(const std::vector<TransferPair>& pairs);

}  // namespace exsim::transport

#endif  // EXSIM_TRANSPORT_CALIBRATION_CACHE_FIT_H_
