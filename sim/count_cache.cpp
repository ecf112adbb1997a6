#include "sim/count_cache.h"

#include <algorithm>

namespace exsim::sim {
namespace {

Policy unnamed(Policy policy) {
  policy.name.clear();
  return policy;
}

}  // namespace

const CountCache::Entry* CountCache::find(const Scenario& scenario, const Policy& policy) const {
  const Policy key = unnamed(policy);
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
    entries_.push_back({unnamed(policy), scenario.costs.wire_overhead_bytes, scenario.costs.lz4_compress_bytes_per_s, {}});
    e = &entries_.back();
  }
  e->runs.resize(std::max(e->runs.size(), counted.size()));
  for (std::size_t i = 0; i < counted.size(); ++i) {
    if (counted[i].counts.rpcs > 0) e->runs[i] = counted[i];
  }
}

}  // namespace exsim::sim
