// Routing rows in aggregate: a hash sender's input batch is split over its
// channels by one multinomial draw, never one event per row, so the cost of a
// simulation grows with batches, not rows.
//
// Both splits go a channel at a time, in channel order, so that a sender can
// seal a channel's batches as soon as its rows are known: the draws are a
// chain (each channel's takes the rows the ones before it left), and the
// sealing of one channel beside the next one's draw is work the processor
// overlaps, where drawing every channel first left it waiting on the chain.
#ifndef EXSIM_SIM_EXCHANGE_ROW_ROUTER_H_
#define EXSIM_SIM_EXCHANGE_ROW_ROUTER_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "models/base/random.h"
#include "models/base/rounding.h"

namespace exsim::sim {

class HashSplitter {
 public:
  explicit HashSplitter(const std::vector<double>& shares);
  int channels() const { return static_cast<int>(conditional_.size()); }

  // The rows of an input batch of `rows` that hash to each channel, channel 0
  // first: sequential conditional binomials, an exact multinomial construction.
  class Draws {
   public:
    // The next channel's rows. REQUIRES: fewer calls than channels().
    std::int64_t next(Random& random) {
      const std::int64_t k = left_ == 0 ? 0 : binomial(left_, (*conditional_)[channel_], random);
      ++channel_;
      left_ -= k;
      return k;
    }

   private:
    friend class HashSplitter;
    Draws(const std::vector<double>& conditional, std::int64_t rows) : conditional_(&conditional), left_(rows) {}
    const std::vector<double>* conditional_;
    std::int64_t left_;
    std::size_t channel_ = 0;
  };
  Draws draws(std::int64_t rows) const { return Draws(conditional_, rows); }

 private:
  std::vector<double> conditional_;  // share of c among channels c..C-1
};

// Divides `total` over parts in proportion to weights summing to `weight_sum`
// > 0, a part at a time, by rounding the running sum: each part within one of
// its share, and the parts add up to `total` exactly (the last running sum is
// weight_sum).
class ProportionalParts {
 public:
  ProportionalParts(std::int64_t total, std::int64_t weight_sum)
      : total_(total), weight_sum_(weight_sum), scale_(static_cast<double>(total) / static_cast<double>(weight_sum)) {}
  // The part of the next weight.
  std::int64_t next(std::int64_t weight) {
    running_weight_ += weight;
    const std::int64_t target =
        running_weight_ == weight_sum_ ? total_ : round_half_away(scale_ * static_cast<double>(running_weight_));
    const std::int64_t part = target - given_;
    given_ = target;
    return part;
  }

 private:
  const std::int64_t total_, weight_sum_;
  const double scale_;
  std::int64_t running_weight_ = 0, given_ = 0;
};

}  // namespace exsim::sim

#endif  // EXSIM_SIM_EXCHANGE_ROW_ROUTER_H_
