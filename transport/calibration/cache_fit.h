// The cache's figures (models/rules/cache_load.h) from routing costs measured
// at several working sets and fan-outs: a pure function, so that it can be
// checked on points made from known figures.
//
// Each point is a hash exchange's routing cost per row (its serialize stage
// less copying and the per-call part) with the load its senders put on the
// cache. The model is
//   route(point) = r + E(W; S) X(s; P, phi) (miss_row + miss_byte b),
// E = 1 - exp(-W/S), X = phi + (1 - phi) max(0, 1 - P/s). For given S, P and phi
// it is linear in r, miss_row and miss_byte, solved by least squares on the
// relative errors; S, P and phi are searched over their physical ranges
// (S 256 KiB to 4 GiB, P 1 to 1024, phi 0 to 1), coarse to fine.
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
};

struct CacheFigures {
  double partition_ns = 0;  // r: a row routed while its batch is in the cache
  double miss_row_ns = 0, miss_byte_ns = 0;
  double cache_bytes = 0, prefetch_streams = 0, prefetched_share = 0;
  double largest_error = 0;  // of the fit over its points, relative
  // The model's routing cost per row at a point.
  double route_ns(const RoutePoint& p) const;
};

// REQUIRES: at least 6 points, at working sets and fan-outs that pin each
// figure (calibrate's: cached, memory-bound at three fan-outs, the knee).
CacheFigures fit_cache(const std::vector<RoutePoint>& points);

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
};
// Neither figure negative: noise that would make the extra so leaves it 0.
TransferFigures fit_transfer(const std::vector<TransferPair>& pairs);

}  // namespace exsim::transport

#endif  // EXSIM_TRANSPORT_CALIBRATION_CACHE_FIT_H_
