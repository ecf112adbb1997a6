#include "models/rules/sizing_policy.h"

#include <algorithm>
#include <cmath>

namespace exsim {
namespace {

// Rows until tuple data reaches the 8 MiB cap; the row that crosses it is included.
std::int64_t hard_cap_rows(double row_bytes) {
  if (row_bytes <= 0) return INT64_MAX;
  return std::max<std::int64_t>(1, static_cast<std::int64_t>(std::ceil(static_cast<double>(kBatchHardCap) / row_bytes)));
}

BatchSize batch_of(std::int64_t rows, double row_bytes) {
  return {rows, static_cast<Bytes>(std::llround(static_cast<double>(rows) * row_bytes))};
}

}  // namespace

Bytes channel_target(const BufferSizing& sizing, int channels) {
  if (sizing.kind == BufferSizing::Kind::kFlat) return sizing.flat;
  Bytes share = sizing.budget / (2 * static_cast<Bytes>(std::max(1, channels)));
  return std::clamp(share, sizing.min, sizing.max);
}

BatchCapacity channel_capacity(const Policy& policy, const RowShape& row, int channels) {
  BatchCapacity capacity;
  capacity.rule = policy.capacity;
  capacity.target = channel_target(policy.buffer, channels);
  capacity.rows = std::max<std::int64_t>(1, capacity.target / std::max<Bytes>(1, row.fixed_bytes));
  if (policy.buffer.kind == BufferSizing::Kind::kBudget) {
    capacity.least_rows = std::max<std::int64_t>(1, policy.buffer.min / std::max<Bytes>(1, row.fixed_bytes));
  }
  return capacity;
}

BatchSize full_channel_batch(const BatchCapacity& capacity, double row_bytes) {
  std::int64_t rows = capacity.rule == CapacityRule::kFixedLen
                          ? capacity.rows
                          : std::max<std::int64_t>(
                                capacity.least_rows,
                                static_cast<std::int64_t>(std::ceil(static_cast<double>(capacity.target) / row_bytes)));
  return batch_of(std::min(rows, hard_cap_rows(row_bytes)), row_bytes);
}

BatchSize full_input_batch(double row_bytes, std::int64_t rows) {
  return batch_of(std::min(rows, hard_cap_rows(row_bytes)), row_bytes);
}

BatchSize typical_batch(const Policy& policy, const Exchange& exchange) {
  const double row_bytes = static_cast<double>(exchange.row.fixed_bytes) + exchange.row.varlen.mean();
  if (exchange.send_path() != PartitionKind::kHash) return full_input_batch(row_bytes, exchange.input_batch_rows);
  return full_channel_batch(channel_capacity(policy, exchange.row, exchange.receivers.instances()), row_bytes);
}

}  // namespace exsim
