// Counts of exchange runs (sim/fast_forward.h, count_exchange_runs) kept
// across the simulations a workflow makes of one scenario that differ only in
// their costs or policy. A cost range simulates each policy under dozens of
// cost variants, and counting the production scenario's 16K shuffle (13
// million batches) takes a third of a second each time.
//
// A count depends on the scenario's workload and seed and on the policy; of
// the costs, only the bytes each call adds (wire_overhead_bytes, in the bytes
// on the wire) and LZ4's rate (in CountedRun::compress_s) touch it. Those and
// the policy (its name, calls in flight and receiver queue aside) are the key. Every simulation given one cache
// must be of the same scenario apart from its costs: the workflow that makes
// the cache sees to it. Safe to share between threads.
#ifndef EXSIM_SIM_COUNT_CACHE_H_
#define EXSIM_SIM_COUNT_CACHE_H_

#include <mutex>
#include <vector>

#include "sim/fast_forward.h"

namespace exsim::sim {

class CountCache {
 public:
  // The kept counts, by exchange run (as count_exchange_runs gives them): a
  // run never counted is left empty (no calls).
  std::vector<CountedRun> kept(const Scenario& scenario, const Policy& policy) const;
  // Keeps every run of `counted` that has calls.
  void keep(const Scenario& scenario, const Policy& policy, const std::vector<CountedRun>& counted);
  std::size_t keys() const;  // policies and cost pairs kept

 private:
  struct Entry {
    Policy policy;  // as a count reads it (count_cache.cpp, as_counted)
    Bytes wire_overhead_bytes;
    double lz4_compress_bytes_per_s;
    std::vector<CountedRun> runs;
  };
  Entry* find(const Scenario& scenario, const Policy& policy);
  const Entry* find(const Scenario& scenario, const Policy& policy) const;

  mutable std::mutex mutex_;
  std::vector<Entry> entries_;  // few: a workflow's policies
};

}  // namespace exsim::sim

#endif  // EXSIM_SIM_COUNT_CACHE_H_
