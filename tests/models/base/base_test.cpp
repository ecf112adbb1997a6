// models/base: sizes, printed figures, random numbers, histograms, JSON Lines, rounding.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

#include <nlohmann/json.hpp>

#include "models/base/error.h"
#include "models/base/histogram.h"
#include "models/base/json_reader.h"
#include "models/base/random.h"
#include "models/base/rounding.h"
#include "models/base/size.h"
#include "models/base/text_units.h"
#include "tests/test_util.h"

namespace exsim {
namespace {

TEST_CASE("sizes parse with binary suffixes and print back") {
  CHECK(parse_size("16384") == 16384);
  CHECK(parse_size("16K") == 16384);
  CHECK(parse_size("16KiB") == 16384);
  CHECK(parse_size("4m") == 4 * kMiB);
  CHECK(parse_size("1G") == kGiB);
  CHECK(parse_size("1.5M") == 3 * kMiB / 2);
  CHECK_FALSE(parse_size("16Q").has_value());
  CHECK_FALSE(parse_size("").has_value());
  CHECK_FALSE(parse_size("K").has_value());
  CHECK(format_size(16384) == "16K");
  CHECK(format_size(4 * kMiB) == "4M");
  CHECK(format_size(1000) == "1000");
  CHECK(human_bytes(1536) == "1.50 KiB");
  CHECK(human_bytes(2.0 * (1LL << 50)) == "2.00 PiB");  // no "1.82e+06 TiB" for large figures
  // What a user reads: exact where short, else human units (a budget / (2 x channels)).
  CHECK(readable_size(16384) == "16K");
  CHECK(readable_size(1000) == "1000");
  CHECK(readable_size(104857) == "102 KiB");
}

TEST_CASE("every table prints seconds and signed percentages one way") {
  CHECK(format_seconds(2) == "2.000 s");
  CHECK(format_seconds(0) == "0.000 s");
  CHECK(format_seconds(0.5) == "500.0 ms");
  CHECK(format_seconds(9.7e-5) == "0.097 ms");  // never 0.000 s for a short figure
  CHECK(format_signed_percent(0.123) == "+12.3%");
  CHECK(format_signed_percent(-0.004) == "-0.4%");
  CHECK(format_signed_percent(std::nan("")) == "n/a");
  CHECK(format_signed_percent(std::numeric_limits<double>::infinity()) == "n/a");
}

TEST_CASE("binomial draws have the binomial mean and variance") {
  Random random(3);
  for (auto [n, q] : {std::pair<std::int64_t, double>{1024, 0.025}, {1024, 0.5}, {40, 0.05}, {5000, 0.9}}) {
    double sum = 0, sum2 = 0;
    const int draws = 20000;
    for (int i = 0; i < draws; ++i) {
      auto k = static_cast<double>(binomial(n, q, random));
      CHECK(k >= 0);
      CHECK(k <= static_cast<double>(n));
      sum += k;
      sum2 += k * k;
    }
    double mean = sum / draws, variance = sum2 / draws - mean * mean;
    const double nd = static_cast<double>(n);
    CHECK(mean == doctest::Approx(nd * q).epsilon(0.02));
    CHECK(variance == doctest::Approx(nd * q * (1 - q)).epsilon(0.08));
  }
}

TEST_CASE("a binomial's normal draw rounds half to even and clamps, as std::nearbyint, fmax and fmin did") {
  // The same stream drawn both ways: the library calls and binomial().
  for (auto [n, q] : {std::pair<std::int64_t, double>{1024, 0.0125}, {64, 0.5}, {600, 0.98}, {1 << 20, 0.3}}) {
    Random ours(11), library(11);
    const double nd = static_cast<double>(n);
    const double variance = nd * q * (1 - q);
    REQUIRE(variance >= 9.0);  // the normal path
    for (int i = 0; i < 20000; ++i) {
      const double x = nd * q + std::sqrt(variance) * library.normal();
      const auto expected = static_cast<std::int64_t>(std::fmin(std::fmax(std::nearbyint(x), 0.0), nd));
      REQUIRE(binomial(n, q, ours) == expected);
    }
  }
}

TEST_CASE("the same seed gives the same numbers") {
  Random a(42), b(42), c(43);
  bool differs = false;
  for (int i = 0; i < 100; ++i) {
    auto x = a.next();
    CHECK(x == b.next());
    differs |= x != c.next();
  }
  CHECK(differs);
  CHECK(derive_seed(1, 2, 3) == derive_seed(1, 2, 3));
  CHECK(derive_seed(1, 2, 3) != derive_seed(1, 3, 2));
}

TEST_CASE("JSON Lines: non-blank lines with their numbers, CR dropped") {
  const auto lines = json_lines("{\"a\": 1}\r\n\n  \n{\"b\": 2}");
  REQUIRE(lines.size() == 2);
  CHECK(lines[0].first == 1);
  CHECK(lines[0].second == "{\"a\": 1}");
  CHECK(lines[1].first == 4);
  CHECK(lines[1].second == "{\"b\": 2}");
  CHECK(json_lines("").empty());
}

TEST_CASE("the histogram's quantiles and mean are within its 3% bucket error") {
  LogHistogram h;
  CHECK(h.mean() == 0);
  // A bimodal sample, like RPC network times to near and far hosts: 600 at 150 us, 400 at 650 us.
  for (int i = 0; i < 600; ++i) h.add(150'000);
  for (int i = 0; i < 400; ++i) h.add(650'000);
  CHECK(h.count() == 1000);
  CHECK(h.mean() == doctest::Approx(350'000).epsilon(0.03));  // (600 x 150 + 400 x 650) / 1000 us
  CHECK(h.quantile(0.5) == doctest::Approx(150'000).epsilon(0.03));
  CHECK(h.quantile(0.99) == doctest::Approx(650'000).epsilon(0.03));
  LogHistogram other;
  other.add(350'000);
  h.merge(other);
  CHECK(h.mean() == doctest::Approx((600 * 150'000.0 + 400 * 650'000.0 + 350'000.0) / 1001).epsilon(0.03));
}

TEST_CASE("round_half_away is std::llround") {
  // Halves go away from zero; everything else to the nearest; over the ranges
  // the simulator rounds (nanoseconds and bytes up to about 2^50).
  for (double x : {0.0, 0.5, 1.5, 2.5, -0.5, -1.5, 0.49999999999999994, -0.49999999999999994, 1e15 + 0.5,
                   4503599627370495.5, 0.1, 1234567.4999, 1234567.5000001, -7.5}) {
    CAPTURE(x);
    CHECK(round_half_away(x) == std::llround(x));
  }
  Random random(5);
  for (int i = 0; i < 100000; ++i) {
    const double x = (random.uniform() - 0.3) * std::ldexp(1.0, static_cast<int>(random.below(51)));
    REQUIRE(round_half_away(x) == std::llround(x));
  }
}

TEST_CASE("ceil_to_int is std::ceil") {
  // Integers stay; fractions go up, negative ones toward zero; over the ranges
  // the simulator takes ceilings of (nanoseconds, bytes, rows up to about 2^50).
  for (double x : {0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1e-300, -1e-300, 0.9999999999999999, 4503599627370495.5,
                   4503599627370496.0, -4503599627370495.5, 1e15 + 0.25}) {
    CAPTURE(x);
    CHECK(ceil_to_int(x) == static_cast<std::int64_t>(std::ceil(x)));
  }
  Random random(9);
  for (int i = 0; i < 100000; ++i) {
    const double x = (random.uniform() - 0.3) * std::ldexp(1.0, static_cast<int>(random.below(51)));
    REQUIRE(ceil_to_int(x) == static_cast<std::int64_t>(std::ceil(x)));
  }
}

}  // namespace
}  // namespace exsim
