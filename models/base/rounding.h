// std::llround and std::ceil without the library calls: the simulator rounds byte counts and
// nanoseconds several times per RPC, and libm's llround (which GCC does not
// inline on the x86-64 baseline) cost about a twentieth of a run.
#ifndef EXSIM_MODELS_BASE_ROUNDING_H_
#define EXSIM_MODELS_BASE_ROUNDING_H_

#include <cstdint>

namespace exsim {

// Nearest integer, halves away from zero: exactly std::llround for |x| < 2^62.
// (x minus its truncation is exact there, so the comparison with 0.5 is too.)
inline std::int64_t round_half_away(double x) {
  const auto whole = static_cast<std::int64_t>(x);
  const double fraction = x - static_cast<double>(whole);
  return whole + (fraction >= 0.5) - (fraction <= -0.5);
}

// Smallest integer not below x: exactly std::ceil for |x| < 2^62, without its
// library call (the simulator takes a ceiling a few times per RPC).
inline std::int64_t ceil_to_int(double x) {
  const auto whole = static_cast<std::int64_t>(x);  // toward zero: already the ceiling when x < 0
  return whole + (x > static_cast<double>(whole));
}

}  // namespace exsim

#endif  // EXSIM_MODELS_BASE_ROUNDING_H_
