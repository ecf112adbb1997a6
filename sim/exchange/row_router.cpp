#include "sim/exchange/row_router.h"

#include <cmath>

#include "models/base/rounding.h"

namespace exsim::sim {

HashSplitter::HashSplitter(const std::vector<double>& shares) : conditional_(shares.size()) {
  double rest = 0;
  for (std::size_t c = shares.size(); c-- > 0;) {
    rest += shares[c];
    conditional_[c] = rest > 0 ? shares[c] / rest : 0;
  }
  if (!conditional_.empty()) conditional_.back() = 1.0;
}

void HashSplitter::split(std::int64_t rows, Random& random, std::vector<std::int64_t>& counts) const {
  counts.resize(conditional_.size());
  std::int64_t left = rows;
  for (std::size_t c = 0; c < conditional_.size(); ++c) {
    std::int64_t k = left == 0 ? 0 : binomial(left, conditional_[c], random);
    counts[c] = k;
    left -= k;
  }
}

void split_proportionally(std::int64_t total, const std::vector<std::int64_t>& weights, std::int64_t weight_sum,
                          std::vector<std::int64_t>& parts) {
  parts.resize(weights.size());
  std::int64_t running_weight = 0, given = 0;
  const double scale = static_cast<double>(total) / static_cast<double>(weight_sum);
  for (std::size_t i = 0; i < weights.size(); ++i) {
    running_weight += weights[i];
    // Rounding the running sum keeps every part within one of its share and the
    // parts summing to `total` exactly (the last running sum is weight_sum).
    const std::int64_t target =
        running_weight == weight_sum ? total : round_half_away(scale * static_cast<double>(running_weight));
    parts[i] = target - given;
    given = target;
  }
}

}  // namespace exsim::sim
