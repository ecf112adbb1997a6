// Deterministic random numbers. Same seed, same sequence, on every platform:
// xoshiro256** seeded through splitmix64 (no std:: distributions, whose output
// differs between standard libraries). Streams for different purposes are
// derived from (seed, tag...) so adding a draw in one place does not shift
// every other draw of the simulation.
#ifndef EXSIM_MODELS_BASE_RANDOM_H_
#define EXSIM_MODELS_BASE_RANDOM_H_

#include <array>
#include <cstddef>
#include <cstdint>

namespace exsim {

// 128-bit integers for exact products (a GCC/Clang extension).
__extension__ typedef unsigned __int128 Uint128;
__extension__ typedef __int128 Int128;

inline std::uint64_t splitmix64(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// Mixes a seed with tags (query index, exchange index, instance...) into a new seed.
inline std::uint64_t derive_seed(std::uint64_t seed, std::uint64_t a, std::uint64_t b = 0, std::uint64_t c = 0) {
  std::uint64_t s = seed ^ 0x6a09e667f3bcc909ULL;
  for (std::uint64_t tag : {a, b, c}) {
    s ^= tag + 0x9e3779b97f4a7c15ULL + (s << 6) + (s >> 2);
    s = splitmix64(s);
  }
  return s;
}

class Random {
 public:
  explicit Random(std::uint64_t seed = 0) {
    std::uint64_t s = seed;
    for (auto& word : state_) word = splitmix64(s);
  }

  std::uint64_t next() {
    const std::uint64_t result = rotl(state_[1] * 5, 7) * 9;
    const std::uint64_t t = state_[1] << 17;
    state_[2] ^= state_[0];
    state_[3] ^= state_[1];
    state_[1] ^= state_[2];
    state_[0] ^= state_[3];
    state_[2] ^= t;
    state_[3] = rotl(state_[3], 45);
    return result;
  }

  // Uniform in [0, 1) with 53 random bits.
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

  // Uniform integer in [0, n), n > 0 (Lemire's multiply-shift; the bias is below 2^-32 for our n).
  std::uint64_t below(std::uint64_t n) {
    return static_cast<std::uint64_t>((static_cast<Uint128>(next()) * n) >> 64);
  }

  // Standard normal variate, quantized to 4096 equiprobable levels: plenty for
  // row counts and byte sums, and a table lookup instead of a log and a sqrt.
  // Inline, as binomial's normal path: a hash sender draws one per channel per
  // group of rows, millions in a long exchange's count.
  double normal() {
    if (normal_chunks_ == 0) {
      normal_bits_ = next();
      normal_chunks_ = 64 / kNormalBits;
    }
    const auto index = static_cast<std::size_t>(normal_bits_ & (kNormalLevels - 1));
    normal_bits_ >>= kNormalBits;
    --normal_chunks_;
    return kNormalLevelTable[index];
  }

  static constexpr int kNormalBits = 12;
  static constexpr int kNormalLevels = 1 << kNormalBits;
  // The midpoint quantile of each of the 4096 equiprobable slices, filled as
  // the program starts (random.cpp): a draw then checks no function-static
  // guard. Nothing draws before main.
  static const std::array<double, kNormalLevels> kNormalLevelTable;

 private:
  static std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  std::array<std::uint64_t, 4> state_;
  std::uint64_t normal_bits_ = 0;  // unused 12-bit chunks of the last draw
  int normal_chunks_ = 0;
};

// Binomial(n, q) by inversion on the smaller tail (binomial's path when n q (1 - q) < 9).
std::int64_t binomial_by_inversion(std::int64_t n, double q, Random& random);

// Binomial(n, q) draw: exact inversion when the mean is small, the normal
// approximation (rounded, clamped to [0, n]) when n q (1 - q) >= 9. Inline: a
// hash sender draws one per channel per group of rows.
inline std::int64_t binomial(std::int64_t n, double q, Random& random) {
  if (n <= 0 || q <= 0) return 0;
  if (q >= 1) return n;
  const double nd = static_cast<double>(n);
  const double variance = nd * q * (1 - q);
  if (variance < 9.0) return binomial_by_inversion(n, q, random);
  // Rounded half to even, as std::nearbyint in the default rounding mode,
  // and clamped, without the library calls GCC makes for nearbyint, fmin
  // and fmax on the x86-64 baseline. Exact for |x| < 2^51; draws never come near.
  const double x = nd * q + __builtin_sqrt(variance) * random.normal();
  const double draw = (x + 0x1.8p52) - 0x1.8p52;
  return static_cast<std::int64_t>(draw < 0 ? 0.0 : (draw > nd ? nd : draw));
}

// Inverse of the standard normal CDF (Acklam's rational approximation, |error| < 1.2e-9).
double inverse_normal_cdf(double p);

}  // namespace exsim

#endif  // EXSIM_MODELS_BASE_RANDOM_H_
