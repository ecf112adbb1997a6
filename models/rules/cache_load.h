// What a host's caches do to the bytes an exchange's senders write and send.
//
// A hash sender appends each row to its channel's batch. A batch's lines were
// last touched when the buffer was filled and sent before, which is the
// sender's whole cycle of channel buffers ago: every channel's batch being
// filled and its outbound buffers, and those of every sender sharing the cache.
// Measured on the real exchange (docs/validation.md, "Caches"), routing a row
// costs about 11 ns while that working set is a few MiB and levels off near 40
// once it is many times the cache; the RPC layer's bytes follow the same curve,
// as the kernel copies batches that have left the cache. Two things set the
// level between:
//
// - Eviction. With a working set of W bytes cycling through a cache of S bytes
//   that evicts at random, a line survives the W bytes written before it is
//   reused with probability exp(-W/S): evicted_share = 1 - exp(-W/S).
// - Exposure. The hardware prefetcher tracks a fixed number P of sequential
//   write streams (each channel's batch is one); an evicted line of a stream
//   it tracks arrives early and costs only a share phi of a miss. A hash
//   sender writes its s streams in the rows' random order: with s <= P the
//   table holds them all; with s > P, streams taken at random evict one
//   another's trackers, and a table of P entries holds a given stream with
//   probability P / s:
//   exposed_share = phi + (1 - phi) max(0, 1 - P / s). Measured on the real
//   exchange this step at P fits the grid better than a smooth s / (s + P)
//   (docs/validation.md, "Caches"), and its P, 24 streams here, is of the size
//   Intel documents for its L2 streamer (32); the smooth form's fitted 50-900
//   streams were not.
//
// Beneath the shared cache each core has its own (L2): a sender's own buffers,
// written in the rows' order, evict its lines to the shared cache once they
// outgrow it, and each byte routed pays for its line coming back, prefetched or
// not (measured at 3 channels, where every stream is tracked: rows of 216 B
// cost more a byte as the batches grow from 16K to 256K, long before the
// shared cache's knee). A sender runs its cycle of buffers many times in a
// time slice, so the core's cache holds its own buffers only, not those of the
// senders sharing the core: evicted_share(W_own, core bytes).
//
// Both the simulator and calibrate (which fits S, P and phi to the real
// exchange) use these, so the two halves agree on the working set's definition.
#ifndef EXSIM_MODELS_RULES_CACHE_LOAD_H_
#define EXSIM_MODELS_RULES_CACHE_LOAD_H_

#include <vector>

#include "models/scenario/scenario.h"

namespace exsim {

// The load an exchange's senders put on one cache.
struct CacheLoad {
  double working_set = 0;  // bytes of sender buffers cycled through (all buffers full, as held)
  double streams = 0;      // write streams of one sender: its channels (hash), else 1
  double own_working_set = 0;  // bytes of one sender's own buffers (its core's cache)
};

// 1 - exp(-working_set / cache_bytes); 0 when cache_bytes <= 0 (no cache model).
double evicted_share(double working_set, double cache_bytes);

// phi + (1 - phi) max(0, 1 - P / s), with phi = prefetched_share clamped to [0, 1];
// 1 when prefetch_streams <= 0 (no prefetcher).
double exposed_share(double streams, double prefetch_streams, double prefetched_share);

// The load of `exchange`'s senders on each host's cache under `policy`: the
// static held bytes of each sender instance (sender_memory.h, rows of mean
// size) summed over the senders sharing that cache (every host's when the
// profile's `cores` makes the hosts one machine, a calibrated profile's
// testbed; else the host's own), and a sender's streams.
std::vector<CacheLoad> sender_cache_load(const Scenario& scenario, const Policy& policy, const Exchange& exchange);

}  // namespace exsim

#endif  // EXSIM_MODELS_RULES_CACHE_LOAD_H_
