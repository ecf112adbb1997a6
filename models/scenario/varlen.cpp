#include "models/scenario/varlen.h"

#include <cmath>

#include "models/base/rounding.h"

namespace exsim {
namespace {

// Mean of an exponential of `rate` truncated to [0, max].
double truncated_exponential_mean(double rate, double max) {
  double tail = std::exp(-rate * max);
  return 1.0 / rate - max * tail / (1.0 - tail);
}

}  // namespace

VarLenDistribution VarLenDistribution::fixed(double bytes) {
  VarLenDistribution d;
  d.kind_ = Kind::kFixed;
  d.mean_ = d.max_ = d.low_ = bytes;
  return d;
}

VarLenDistribution VarLenDistribution::uniform(double mean, double max) {
  VarLenDistribution d;
  d.kind_ = Kind::kUniform;
  d.mean_ = mean;
  d.max_ = max;
  double high = 2 * mean <= max ? 2 * mean : max;
  d.low_ = 2 * mean - high;
  d.stddev_ = (high - d.low_) / std::sqrt(12.0);
  return d;
}

VarLenDistribution VarLenDistribution::exponential(double mean, double max) {
  VarLenDistribution d;
  d.kind_ = Kind::kExponential;
  d.mean_ = mean;
  d.max_ = max;
  // The truncated mean falls as the rate grows; bisect on log(rate).
  double lo = std::log(1e-12 / mean), hi = std::log(1e6 / mean);
  for (int i = 0; i < 200; ++i) {
    double mid = 0.5 * (lo + hi);
    if (truncated_exponential_mean(std::exp(mid), max) > mean) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  d.rate_ = std::exp(0.5 * (lo + hi));
  double r = d.rate_, tail = std::exp(-r * max);
  double second = (2 / (r * r) - tail * (max * max + 2 * max / r + 2 / (r * r))) / (1 - tail);
  d.stddev_ = std::sqrt(std::fmax(0.0, second - mean * mean));
  return d;
}

double VarLenDistribution::draw(Random& random) const {
  switch (kind_) {
    case Kind::kFixed:
      return mean_;
    case Kind::kUniform:
      return low_ + (2 * mean_ - 2 * low_) * random.uniform();
    case Kind::kExponential:
      return -std::log(1 - random.uniform() * (1 - std::exp(-rate_ * max_))) / rate_;
  }
  return mean_;
}

std::int64_t VarLenDistribution::sample_sum(std::int64_t rows, Random& random) const {
  if (rows <= 0) return 0;
  const double n = static_cast<double>(rows);
  if (kind_ == Kind::kFixed) return round_half_away(n * mean_);
  double sum = 0;
  if (rows < 16) {
    for (std::int64_t i = 0; i < rows; ++i) sum += draw(random);
  } else {
    sum = n * mean_ + std::sqrt(n) * stddev_ * random.normal();
    sum = std::fmin(std::fmax(sum, n * low_), n * max_);
  }
  return round_half_away(sum);
}

}  // namespace exsim
