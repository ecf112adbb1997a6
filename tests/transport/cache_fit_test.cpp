// The cache's figures fitted from routing costs: points made from known
// figures give those figures back, and the RPC bytes' two rates come back from
// pairs of calls.
#include <doctest/doctest.h>

#include <vector>

#include "models/rules/cache_load.h"
#include "transport/calibration/cache_fit.h"

namespace exsim::transport {
namespace {

// The fan-outs and working sets calibrate measures (one sender, three buffers a channel).
std::vector<RoutePoint> points_from(const CacheFigures& truth) {
  std::vector<RoutePoint> points;
  const struct { double channels, batch, row; } shapes[] = {
      {3, 29e3, 40},  {3, 470e3, 40}, {48, 940e3, 40}, {48, 1.1e6, 216}, {12, 3.7e6, 40},
      {81, 470e3, 40}, {48, 29e3, 40}, {48, 59e3, 40}, {48, 235e3, 40},  {24, 470e3, 40}};
  for (const auto& s : shapes) {
    RoutePoint p{s.channels * s.batch * 3, s.channels, s.row, 0};
    p.route_ns = truth.route_ns(p);
    points.push_back(p);
  }
  return points;
}

TEST_CASE("the cache's figures come back from points made with them") {
  const CacheFigures truth{.partition_ns = 9, .miss_row_ns = 14, .miss_byte_ns = 0.6, .cache_bytes = 20e6,
                           .prefetch_streams = 40, .prefetched_share = 0.3};
  const CacheFigures fitted = fit_cache(points_from(truth));
  CHECK(fitted.largest_error < 0.01);
  CHECK(fitted.partition_ns == doctest::Approx(9).epsilon(0.03));
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
  CHECK(exposed_share(3, 16, 0.25) == 0.25);
  CHECK(evicted_share(16e6, 16e6) == doctest::Approx(1 - 1 / 2.718281828));
  CHECK(exposed_share(5, 0, 0.3) == 1);  // no prefetcher: every miss whole
  CHECK(evicted_share(1e9, 0) == 0);      // no cache model
}

TEST_CASE("the RPC bytes' cached rate and their extra beyond the cache, from pairs of calls") {
  // Each side 0.25 ns a byte cached, 0.1 more evicted; 20 us a call both sides.
  const auto call = [](double bytes, double evicted) { return 20e3 + 2 * bytes * (0.25 + evicted * 0.1); };
  const TransferPair cached{call(29e3, 0.01), 29e3, 0.01, call(460e3, 0.1), 460e3, 0.1};
  const TransferPair beyond{call(29e3, 0.2), 29e3, 0.2, call(940e3, 0.99), 940e3, 0.99};
  const TransferFigures f = fit_transfer({cached, beyond});
  CHECK(f.ns_per_byte == doctest::Approx(0.25));
  CHECK(f.miss_ns_per_byte == doctest::Approx(0.1));
  // Noise that would make the extra negative leaves it at 0, the rate from all the bytes.
  const TransferFigures flat = fit_transfer({{20e3, 29e3, 0, 20e3 + 2 * 431e3 * 0.3, 460e3, 0}});
  CHECK(flat.miss_ns_per_byte == 0);
  CHECK(flat.ns_per_byte == doctest::Approx(0.3));
}

}  // namespace
}  // namespace exsim::transport
