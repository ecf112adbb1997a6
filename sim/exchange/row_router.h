// Routing rows in aggregate: a hash sender's input batch is split over its
// channels by one multinomial draw, never one event per row, so the cost of a
// simulation grows with batches, not rows.
#ifndef EXSIM_SIM_EXCHANGE_ROW_ROUTER_H_
#define EXSIM_SIM_EXCHANGE_ROW_ROUTER_H_

#include <cstdint>
#include <vector>

#include "models/base/random.h"

namespace exsim::sim {

class HashSplitter {
 public:
  explicit HashSplitter(const std::vector<double>& shares);
  // counts[c] = rows of an input batch of `rows` that hash to channel c:
  // sequential conditional binomials, an exact multinomial construction.
  void split(std::int64_t rows, Random& random, std::vector<std::int64_t>& counts) const;
  int channels() const { return static_cast<int>(conditional_.size()); }

 private:
  std::vector<double> conditional_;  // share of c among channels c..C-1
};

// Divides `total` over parts in proportion to `weights` (summing to
// `weight_sum` > 0) by rounding the running sum: parts add up to `total` exactly.
void split_proportionally(std::int64_t total, const std::vector<std::int64_t>& weights, std::int64_t weight_sum,
                          std::vector<std::int64_t>& parts);

}  // namespace exsim::sim

#endif  // EXSIM_SIM_EXCHANGE_ROW_ROUTER_H_
