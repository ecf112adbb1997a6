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

}  // namespace exsim
