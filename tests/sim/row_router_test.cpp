// Routing rows in aggregate (sim/exchange/row_router.h): a channel at a time,
// the rows and bytes are all given out, each channel gets its share, and the
// same stream gives the same split.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "models/base/random.h"
#include "sim/exchange/row_router.h"

namespace exsim::sim {

TEST_CASE("a hash split gives out every row, each channel its share on average") {
  const std::vector<double> shares = {0.1, 0.2, 0.3, 0.0, 0.4};
  const HashSplitter splitter(shares);
  Random random(5);
  constexpr std::int64_t kRows = 3000;
  constexpr int kSplits = 2000;
  std::vector<double> mean(shares.size(), 0);
  for (int s = 0; s < kSplits; ++s) {
    HashSplitter::Draws draws = splitter.draws(kRows);
    std::int64_t given = 0;
    for (std::size_t c = 0; c < shares.size(); ++c) {
      const std::int64_t k = draws.next(random);
      REQUIRE(k >= 0);
      if (shares[c] == 0) REQUIRE(k == 0);
      given += k;
      mean[c] += static_cast<double>(k) / kSplits;
    }
    REQUIRE(given == kRows);  // the last channel takes what is left
  }
  for (std::size_t c = 0; c < shares.size(); ++c) {
    // Within four standard errors of the multinomial's mean.
    const double sd = std::sqrt(kRows * shares[c] * (1 - shares[c]) / kSplits);
    CHECK(std::abs(mean[c] - kRows * shares[c]) <= 4 * sd + 1e-9);
  }
  // The same stream, the same split.
  Random a(9), b(9);
  HashSplitter::Draws da = splitter.draws(kRows), db = splitter.draws(kRows);
  for (std::size_t c = 0; c < shares.size(); ++c) CHECK(da.next(a) == db.next(b));
}

TEST_CASE("proportional parts add up to the total, each within one of its share") {
  const std::vector<std::int64_t> weights = {3, 0, 7, 1, 0, 9, 5};
  std::int64_t weight_sum = 0;
  for (std::int64_t w : weights) weight_sum += w;
  for (std::int64_t total : {0, 1, 17, 1000, 123457}) {
    ProportionalParts parts(total, weight_sum);
    std::int64_t given = 0;
    for (std::int64_t w : weights) {
      const std::int64_t part = parts.next(w);
      const double share = static_cast<double>(total) * static_cast<double>(w) / static_cast<double>(weight_sum);
      CHECK(std::abs(static_cast<double>(part) - share) <= 1.0);
      if (w == 0) CHECK(part == 0);
      given += part;
    }
    CHECK(given == total);
  }
}

}  // namespace exsim::sim
