#include "sim/count_cache.h"

#include <algorithm>

namespace exsim::sim {
namespace {

// The policy as a count reads it. Counting plans every batch without time
// (SenderInstance::count_sends): the calls in flight (the window, and at HEAD
// the outbound buffers a send takes, issue_batch) and the receiver's queue
// only decide when batches go, and the name nothing. Two policies that differ
// only there count alike: a policy and its two-in-flight variant share one.
Policy as_counted(Policy policy) {
  policy.name.clear();
  policy.in_flight = 1;
  policy.receiver_buffer = 0;
  return policy;
}

}  // namespace

const CountCache::Entry* CountCache::find(const Scenario& scenario, const Policy& policy) const {
  const Policy key = as_counted(policy);
  for (const Entry& e : entries_) {
    if (e.policy == key && e.wire_overhead_bytes == scenario.costs.wire_overhead_bytes &&
        e.lz4_compress_bytes_per_s == scenario.costs.lz4_compress_bytes_per_s) {
      return &e;
    }
  }
  return nullptr;
}

CountCache::Entry* CountCache::find(const Scenario& scenario, const Policy& policy) {
  return const_cast<Entry*>(std::as_const(*this).find(scenario, policy));
}

std::vector<CountedRun> CountCache::kept(const Scenario& scenario, const Policy& policy) const {
  const std::lock_guard<std::mutex> guard(mutex_);
  const Entry* e = find(scenario, policy);
  return e ? e->runs : std::vector<CountedRun>{};
}

std::size_t CountCache::keys() const {
  const std::lock_guard<std::mutex> guard(mutex_);
  return entries_.size();
}

void CountCache::keep(const Scenario& scenario, const Policy& policy, const std::vector<CountedRun>& counted) {
  const std::lock_guard<std::mutex> guard(mutex_);
  Entry* e = find(scenario, policy);
  if (!e) {
    entries_.push_back({as_counted(policy), scenario.costs.wire_overhead_bytes, scenario.costs.lz4_compress_bytes_per_s, {}});
    e = &entries_.back();
  }
  e->runs.resize(std::max(e->runs.size(), counted.size()));
  for (std::size_t i = 0; i < counted.size(); ++i) {
    if (counted[i].counts.rpcs > 0) e->runs[i] = counted[i];
  }
}

}  // namespace exsim::sim
