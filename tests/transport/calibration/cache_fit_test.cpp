// The cache's figures fitted from routing costs: points made from known
// figures give those figures back, and the RPC bytes' two rates come back from
// pairs of calls.
#include <doctest/doctest.h>

#include <stdexcept>
#include <vector>

#include "models/rules/cache_load.h"
#include "transport/calibration/cache_fit.h"

namespace exsim::transport {
namespace {

// The fan-outs and working sets calibrate measures (one sender, three buffers a channel).
std::vector<RoutePoint> points_from(const CacheFigures& truth) {
  std::vector<RoutePoint> points;
  const struct { double channels, batch, row; } shapes[] = {
      {3, 29e3, 40},   {3, 470e3, 40},  {48, 940e3, 40}, {48, 1.1e6, 216}, {12, 3.7e6, 40}, {81, 470e3, 40},
      {48, 29e3, 40},  {48, 59e3, 40},  {48, 235e3, 40}, {24, 470e3, 40},  {3, 29e3, 216},  {3, 470e3, 216},
      {81, 1.1e6, 40}};
  for (const auto& s : shapes) {
    const double own = s.channels * s.batch * 3;
    RoutePoint p{own, s.channels, s.row, 0, own};
    p.route_ns = truth.route_ns(p);
    points.push_back(p);
  }
  return points;
}

TEST_CASE("the cache's figures come back from points made with them") {
  const CacheFigures truth{.partition_ns = 9, .append_byte_ns = 0.04, .core_cache_bytes = 2e6,
                           .core_miss_byte_ns = 0.05, .miss_row_ns = 14, .miss_byte_ns = 0.6, .cache_bytes = 20e6,
                           .prefetch_streams = 40, .prefetched_share = 0.3};
  const CacheFigures fitted = fit_cache(points_from(truth), 2e6);
  CHECK(fitted.largest_error < 0.01);
  CHECK(fitted.partition_ns == doctest::Approx(9).epsilon(0.03));
  CHECK(fitted.append_byte_ns == doctest::Approx(0.04).epsilon(0.05));
  CHECK(fitted.core_miss_byte_ns == doctest::Approx(0.05).epsilon(0.1));
  CHECK(fitted.miss_row_ns == doctest::Approx(14).epsilon(0.05));
  CHECK(fitted.miss_byte_ns == doctest::Approx(0.6).epsilon(0.05));
  CHECK(fitted.cache_bytes == doctest::Approx(20e6).epsilon(0.05));
  CHECK(fitted.prefetch_streams == doctest::Approx(40).epsilon(0.1));
  CHECK(fitted.prefetched_share == doctest::Approx(0.3).epsilon(0.1));
}

TEST_CASE("a working set far below the cache costs the cached rate; far beyond, the exposed miss") {
  const CacheFigures f{.partition_ns = 10, .miss_row_ns = 20, .cache_bytes = 16e6, .prefetch_streams = 16,
                       .prefetched_share = 0.25};
  CHECK(f.route_ns({1e3, 3, 40, 0}) == doctest::Approx(10).epsilon(0.001));
  // 32 streams against a prefetcher tracking 16: each tracked with probability
  // 16 / 32, so 0.25 + 0.75 / 2 of the miss; 16 or fewer, all tracked.
  CHECK(f.route_ns({16e9, 32, 40, 0}) == doctest::Approx(10 + 20 * 0.625));
  CHECK(f.route_ns({16e9, 16, 40, 0}) == doctest::Approx(10 + 20 * 0.25));
  // A byte appended costs its rate, in the cache and beyond it.
  const CacheFigures append{.partition_ns = 10, .append_byte_ns = 0.05, .miss_row_ns = 20, .cache_bytes = 16e6};
  CHECK(append.route_ns({1e3, 3, 216, 0}) == doctest::Approx(10 + 216 * 0.05).epsilon(0.001));
  CHECK(append.route_ns({16e9, 3, 216, 0}) == doctest::Approx(10 + 216 * 0.05 + 20));
  // And more as the sender's own buffers outgrow its core's cache (evicting
  // 1 - 1/e of it at its size), whatever the shared cache does.
  const CacheFigures core{.partition_ns = 10, .append_byte_ns = 0.05, .core_cache_bytes = 2e6, .core_miss_byte_ns = 0.1};
  CHECK(core.route_ns({1e3, 3, 40, 0, 1e3}) == doctest::Approx(10 + 40 * 0.05).epsilon(0.001));
  CHECK(core.route_ns({2e6, 3, 40, 0, 2e6}) == doctest::Approx(10 + 40 * 0.05 + 40 * 0.1 * (1 - 1 / 2.718281828)));
  CHECK(exposed_share(3, 16, 0.25) == 0.25);
  CHECK(evicted_share(16e6, 16e6) == doctest::Approx(1 - 1 / 2.718281828));
  CHECK(exposed_share(5, 0, 0.3) == 1);  // no prefetcher: every miss whole
  CHECK(evicted_share(1e9, 0) == 0);      // no cache model
}

TEST_CASE("repetitions are fitted once, at each point's median; the decode's extra from the same points") {
  const CacheFigures truth{.partition_ns = 9, .append_byte_ns = 0.04, .core_cache_bytes = 2e6,
                           .core_miss_byte_ns = 0.05, .miss_row_ns = 14, .miss_byte_ns = 0.6, .cache_bytes = 20e6,
                           .prefetch_streams = 40, .prefetched_share = 0.3};
  // Three repetitions, each point 10% off one way or the other in one of them:
  // the medians are the truth, which a fit figure by figure of each would not give.
  std::vector<std::vector<CacheMeasure>> repetitions(3);
  const std::vector<RoutePoint> points = points_from(truth);
  for (std::size_t i = 0; i < points.size(); ++i) {
    for (std::size_t r = 0; r < 3; ++r) {
      CacheMeasure m{points[i], 0.05 + 0.1 * evicted_share(points[i].working_set, 20e6)};
      if (r == i % 3) m.route.route_ns *= i % 2 == 0 ? 1.1 : 0.9;
      repetitions[r].push_back(m);
    }
  }
  const std::vector<CacheMeasure> medians = median_measures(repetitions);
  REQUIRE(medians.size() == points.size());
  for (std::size_t i = 0; i < points.size(); ++i) CHECK(medians[i].route.route_ns == points[i].route_ns);
  std::vector<RoutePoint> routes;
  for (const CacheMeasure& m : medians) routes.push_back(m.route);
  CHECK(fit_cache(routes, 2e6).largest_error < 0.01);
  CHECK(fit_decode_miss(medians, 20e6) == doctest::Approx(0.1));
  // Repetitions of different points are not a set to take medians of.
  repetitions[1].pop_back();
  CHECK_THROWS_AS(median_measures(repetitions), std::invalid_argument);
}

TEST_CASE("the RPC bytes' cached rate and their extra beyond the cache, from pairs of calls") {
  // Each side 0.25 ns a byte cached, 0.1 more evicted; 20 us a call both sides.
  const auto call = [](double bytes, double evicted) { return 20e3 + 2 * bytes * (0.25 + evicted * 0.1); };
  const TransferPair cached{call(29e3, 0.01), 29e3, 0.01, call(460e3, 0.1), 460e3, 0.1};
  const TransferPair beyond{call(29e3, 0.2), 29e3, 0.2, call(940e3, 0.99), 940e3, 0.99};
  const TransferFigures f = fit_transfer({cached, beyond});
  CHECK(f.ns_per_byte == doctest::Approx(0.25));
  CHECK(f.miss_ns_per_byte == doctest::Approx(0.1));
  // What the bytes leave of each call, each side: half the 20 us.
  CHECK(f.call_ns == doctest::Approx(10e3));
  // Noise that would make the extra negative leaves it at 0, the rate from all the bytes.
  const TransferFigures flat = fit_transfer({{20e3, 29e3, 0, 20e3 + 2 * 431e3 * 0.3, 460e3, 0}});
  CHECK(flat.miss_ns_per_byte == 0);
  CHECK(flat.ns_per_byte == doctest::Approx(0.3));
  // What the rate leaves of each call a side: 10 us less 29 KB at 0.3 ns a
  // byte, in the small call and (by construction) in the large one.
  CHECK(flat.call_ns == doctest::Approx(10e3 - 29e3 * 0.3));
}

}  // namespace
}  // namespace exsim::transport
