// How big a channel's batch gets under a policy (docs/impala.md §§1.2-1.4,
// 1.7) and the per-channel target of a budget policy (IMPALA-15512).
#ifndef EXSIM_MODELS_RULES_SIZING_POLICY_H_
#define EXSIM_MODELS_RULES_SIZING_POLICY_H_

#include <cstdint>

#include "models/scenario/policy.h"
#include "models/scenario/scenario.h"

namespace exsim {

// Rows and tuple-data bytes of one batch.
struct BatchSize {
  std::int64_t rows = 0;
  Bytes tuple_bytes = 0;
};

// Per-channel byte target: flat, or clamp(budget / (2 x channels), min, max).
Bytes channel_target(const BufferSizing& sizing, int channels);

// When a channel's batch is full.
struct BatchCapacity {
  CapacityRule rule = CapacityRule::kFixedLen;
  std::int64_t rows = 1;  // fixed_len: max(1, target / fixed_bytes), var-len ignored (docs/impala.md §1.2)
  Bytes target = 0;       // bytes: flush once tuple bytes incl. var-len reach it
  // bytes, budget policies: and not before this many rows, a flat buffer of the
  // budget's `min` under today's rule (min / fixed_bytes rows): IMPALA-15512's
  // per-channel target is "never smaller than today", whose batches ignore
  // var-len bytes and so hold more rows than a 16K target counting them.
  std::int64_t least_rows = 1;
  // Both rules also flush when tuple data reaches kBatchHardCap (docs/impala.md §1.4).
  bool full(std::int64_t batch_rows, Bytes batch_bytes) const {
    return batch_bytes >= kBatchHardCap ||
           (rule == CapacityRule::kFixedLen ? batch_rows >= rows : batch_bytes >= target && batch_rows >= least_rows);
  }
};

BatchCapacity channel_capacity(const Policy& policy, const RowShape& row, int channels);

// A full channel batch when every row has `row_bytes` (fixed + var-len).
BatchSize full_channel_batch(const BatchCapacity& capacity, double row_bytes);

// A whole operator batch (`rows`, the exchange's input_batch_rows, 1024 unless
// the scenario says its producer emits fewer; bounded by the 8 MiB cap): what
// broadcast, random and merge senders send (docs/impala.md §1.7).
BatchSize full_input_batch(double row_bytes, std::int64_t rows);

// A typical full batch of `exchange` under `policy` at mean row sizes: a
// channel batch for hash, a whole input batch for the other kinds.
BatchSize typical_batch(const Policy& policy, const Exchange& exchange);

}  // namespace exsim

#endif  // EXSIM_MODELS_RULES_SIZING_POLICY_H_
