#include "models/rules/scan_feed.h"

#include <algorithm>

#include "models/rules/sizing_policy.h"

namespace exsim {

ScanShape scan_shape(const Scenario& scenario, const Exchange& exchange, std::int64_t rows) {
  ScanShape shape;
  if (scenario.mt_dop != 0 || exchange.scan.rows_per_s <= 0) return shape;  // HdfsScanNodeMt, or no scan
  constexpr std::int64_t kPerThread = 5;
  constexpr double kMostBytes = 16.0 * 1024 * 1024;
  const double row_bytes = static_cast<double>(exchange.row.fixed_bytes) + exchange.row.varlen.mean();
  const BatchSize batch = full_input_batch(row_bytes, exchange.input_batch_rows);
  const auto by_bytes = static_cast<std::int64_t>(kMostBytes / std::max<double>(1, static_cast<double>(batch.tuple_bytes)));
  shape.threads = exchange.scan.threads;
  shape.queue = std::max<std::int64_t>(1, std::min(kPerThread * shape.threads, by_bytes));
  shape.ns_per_row = 1e9 / exchange.scan.rows_per_s;
  shape.rows = rows;
  shape.rows_per_batch = batch.rows;
  return shape;
}

double sender_input_ns(const Exchange& exchange, std::int64_t rows, bool scanned_apart) {
  const auto n = static_cast<double>(rows);
  double ns = exchange.produce_rows_per_s > 0 ? n / exchange.produce_rows_per_s * 1e9 : 0;
  if (!scanned_apart && exchange.scan.rows_per_s > 0) ns += n / exchange.scan.rows_per_s * 1e9;
  return ns;
}

}  // namespace exsim
