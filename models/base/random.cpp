#include "models/base/random.h"

#include <cmath>

namespace exsim {
namespace {

std::array<double, Random::kNormalLevels> normal_levels() {
  std::array<double, Random::kNormalLevels> level{};
  for (int i = 0; i < Random::kNormalLevels; ++i) {
    level[static_cast<std::size_t>(i)] = inverse_normal_cdf((i + 0.5) / Random::kNormalLevels);
  }
  return level;
}

}  // namespace

const std::array<double, Random::kNormalLevels> Random::kNormalLevelTable = normal_levels();

std::int64_t binomial_by_inversion(std::int64_t n, double q, Random& random) {
  const double nd = static_cast<double>(n);
  // Inversion on the smaller tail, so the expected loop count is min(nq, n(1-q)) + 1.
  const bool flip = q > 0.5;
  const double p = flip ? 1 - q : q;
  const double ratio = p / (1 - p);
  double probability = std::pow(1 - p, nd);
  double cumulative = probability;
  const double u = random.uniform();
  std::int64_t k = 0;
  while (u > cumulative && k < n) {
    probability *= ratio * static_cast<double>(n - k) / static_cast<double>(k + 1);
    cumulative += probability;
    ++k;
  }
  return flip ? n - k : k;
}

double inverse_normal_cdf(double p) {
  static constexpr double a[] = {-3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02,
                                 1.383577518672690e+02,  -3.066479806614716e+01, 2.506628277459239e+00};
  static constexpr double b[] = {-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
                                 6.680131188771972e+01,  -1.328068155288572e+01};
  static constexpr double c[] = {-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
                                 -2.549732539343734e+00, 4.374664141464968e+00,  2.938163982698783e+00};
  static constexpr double d[] = {7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
                                 3.754408661907416e+00};
  constexpr double kLow = 0.02425;
  if (p <= 0) return -HUGE_VAL;
  if (p >= 1) return HUGE_VAL;
  if (p < kLow) {
    double q = std::sqrt(-2 * std::log(p));
    return (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
           ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  }
  if (p > 1 - kLow) return -inverse_normal_cdf(1 - p);
  double q = p - 0.5;
  double r = q * q;
  return (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
         (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
}

}  // namespace exsim
