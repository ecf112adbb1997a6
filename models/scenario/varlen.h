// Variable-length bytes per row (strings): a distribution with a mean, used for
// batch sizes and the expected memory, and a max, used for the worst case.
#ifndef EXSIM_MODELS_SCENARIO_VARLEN_H_
#define EXSIM_MODELS_SCENARIO_VARLEN_H_

#include <cstdint>
#include <string_view>

#include "models/base/random.h"

namespace exsim {

class VarLenDistribution {
 public:
  enum class Kind { kFixed, kUniform, kExponential };

  VarLenDistribution() = default;
  // Every row carries exactly `bytes`.
  static VarLenDistribution fixed(double bytes);
  // Uniform with the given mean, never above max: on [0, 2 mean] when 2 mean <= max,
  // else on [2 mean - max, max]. REQUIRES: 0 <= mean <= max.
  static VarLenDistribution uniform(double mean, double max);
  // Exponential truncated at max, its rate chosen so that the truncated mean is
  // `mean`. REQUIRES: 0 < mean < max / 2.
  static VarLenDistribution exponential(double mean, double max);

  Kind kind() const { return kind_; }
  double mean() const { return mean_; }
  double max() const { return max_; }
  double min() const { return low_; }

  // Total var-len bytes of `rows` rows: exact sum of draws for few rows, the
  // normal approximation of the sum (clamped to its support) for many.
  std::int64_t sample_sum(std::int64_t rows, Random& random) const;
  // One row's var-len bytes.
  double draw(Random& random) const;

  bool operator==(const VarLenDistribution&) const = default;

 private:
  Kind kind_ = Kind::kFixed;
  double mean_ = 0;
  double max_ = 0;
  double low_ = 0;   // support is [low_, max_]
  double rate_ = 0;  // exponential only
  double stddev_ = 0;
};

}  // namespace exsim

#endif  // EXSIM_MODELS_SCENARIO_VARLEN_H_
