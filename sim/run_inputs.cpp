#include "sim/run_inputs.h"

#include "sim/exchange/model_context.h"

namespace exsim::sim {
namespace {

// The per-call figures as the model reads them (CostRates): a call among many
// at rpc_cpu_us or above costs what one alone does, as with none, and so does
// a call taken busy when nothing is shared.
void calls_as_read(CostProfile& costs) {
  const CostRates rates(costs);
  if (rates.calls_share()) return;
  costs.rpc_cpu_busy_us = -1;
  if (rates.rpc_cpu_queued == static_cast<double>(rates.rpc_cpu)) costs.rpc_cpu_queued_us = -1;
}

}  // namespace

Policy policy_seen_by(const Policy& policy, const Exchange& exchange) {
  Policy seen = policy;
  seen.name.clear();
  if (exchange.send_path() != PartitionKind::kHash) {
    seen.buffer = BufferSizing{};
    seen.capacity = CapacityRule{};
  }
  return seen;
}

CostProfile costs_seen_by(const CostProfile& costs, const Exchange& exchange) {
  CostProfile seen = costs;
  seen.source.clear();
  seen.spread.clear();
  calls_as_read(seen);
  if (exchange.send_path() != PartitionKind::kHash) {
    const CostProfile none;
    seen.partition_rows_per_s = none.partition_rows_per_s;
    seen.append_bytes_per_s = none.append_bytes_per_s;
    seen.core_cache_bytes = none.core_cache_bytes;
    seen.core_miss_byte_ns = none.core_miss_byte_ns;
    seen.cache_miss_row_ns = none.cache_miss_row_ns;
    seen.cache_miss_byte_ns = none.cache_miss_byte_ns;
    seen.prefetch_streams = none.prefetch_streams;
    seen.prefetched_miss_share = none.prefetched_miss_share;
  }
  return seen;
}

bool same_timeline(const CostProfile& a, const CostProfile& b) {
  CostProfile left = a, right = b;
  for (CostProfile* costs : {&left, &right}) {
    costs->source.clear();
    costs->spread.clear();
    costs->rpc_caller_cpu_us = 0;
    calls_as_read(*costs);
  }
  return left == right;
}

}  // namespace exsim::sim
