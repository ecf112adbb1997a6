#include "models/rules/scan_feed.h"

#include <algorithm>

#include "models/rules/sizing_policy.h"

namespace exsim {

int scanner_threads(const Scenario& scenario, const Exchange& exchange) {
  return scenario.mt_dop == 0 && exchange.scan.rows_per_s > 0 ? exchange.scan.threads : 0;
}

std::int64_t scan_queue_batches(int threads, double row_bytes) {
  constexpr std::int64_t kPerThread = 5;
  constexpr double kMostBytes = 16.0 * 1024 * 1024;
  const BatchSize batch = full_input_batch(row_bytes);
  const auto by_bytes = static_cast<std::int64_t>(kMostBytes / std::max<double>(1, static_cast<double>(batch.tuple_bytes)));
  return std::max<std::int64_t>(1, std::min(kPerThread * threads, by_bytes));
}

ScanShape scan_shape(const Scenario& scenario, const Exchange& exchange, std::int64_t rows) {
  ScanShape shape;
  shape.threads = scanner_threads(scenario, exchange);
  if (shape.threads == 0) return shape;
  const double row_bytes = static_cast<double>(exchange.row.fixed_bytes) + exchange.row.varlen.mean();
  shape.queue = scan_queue_batches(shape.threads, row_bytes);
  shape.ns_per_row = 1e9 / exchange.scan.rows_per_s;
  shape.rows = rows;
  shape.rows_per_batch = full_input_batch(row_bytes).rows;
  return shape;
}

}  // namespace exsim
