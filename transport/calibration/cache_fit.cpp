#include "transport/calibration/cache_fit.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "models/rules/cache_load.h"

namespace exsim::transport {
namespace {

// The weight of each point: errors are relative.
double weight(const RoutePoint& p) { return 1.0 / std::max(1e-9, p.route_ns); }

// Solves the 3x3 system a x = b (Cramer); false when singular.
bool solve3(const std::array<std::array<double, 3>, 3>& a, const std::array<double, 3>& b, std::array<double, 3>& x) {
  const auto det = [](const std::array<std::array<double, 3>, 3>& m) {
    return m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) +
           m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
  };
  const double d = det(a);
  if (std::abs(d) < 1e-300) return false;
  for (int i = 0; i < 3; ++i) {
    auto m = a;
    for (int r = 0; r < 3; ++r) m[r][i] = b[r];
    x[i] = det(m) / d;
  }
  return true;
}

// For fixed S, P and phi: r, miss_row and miss_byte by weighted least squares,
// none negative (a negative one is held at 0 and the others refitted). Returns
// the largest relative error, or infinity.
double fit_linear(const std::vector<RoutePoint>& points, CacheFigures& f) {
  // Columns: 1, g, g b, with g = E X.
  auto column = [&](const RoutePoint& p, int k) {
    const double g = evicted_share(p.working_set, f.cache_bytes) *
                     exposed_share(p.streams, f.prefetch_streams, f.prefetched_share);
    return k == 0 ? 1.0 : k == 1 ? g : g * p.row_bytes;
  };
  std::array<bool, 3> free = {true, true, true};
  std::array<double, 3> x{};
  for (int attempt = 0; attempt < 4; ++attempt) {
    std::array<std::array<double, 3>, 3> a{};
    std::array<double, 3> b{};
    for (const RoutePoint& p : points) {
      const double w = weight(p) * weight(p);
      for (int i = 0; i < 3; ++i) {
        const double ci = free[i] ? column(p, i) : 0;
        b[i] += w * ci * p.route_ns;
        for (int j = 0; j < 3; ++j) a[i][j] += w * ci * (free[j] ? column(p, j) : 0);
      }
    }
    for (int i = 0; i < 3; ++i) {
      if (!free[i]) a[i][i] = 1, b[i] = 0;
    }
    if (!solve3(a, b, x)) return std::numeric_limits<double>::infinity();
    bool changed = false;
    for (int i = 0; i < 3; ++i) {
      if (free[i] && x[i] < 0) free[i] = false, changed = true;
    }
    if (!changed) break;
  }
  f.partition_ns = std::max(0.0, x[0]);
  f.miss_row_ns = std::max(0.0, x[1]);
  f.miss_byte_ns = std::max(0.0, x[2]);
  double largest = 0;
  for (const RoutePoint& p : points) largest = std::max(largest, std::abs(f.route_ns(p) / p.route_ns - 1));
  return largest;
}

// Sum of squared relative errors at the figures' current values.
double squared_error(const std::vector<RoutePoint>& points, CacheFigures& f) {
  if (!std::isfinite(fit_linear(points, f))) return std::numeric_limits<double>::infinity();
  double sum = 0;
  for (const RoutePoint& p : points) sum += std::pow(f.route_ns(p) / p.route_ns - 1, 2);
  return sum;
}

}  // namespace

double CacheFigures::route_ns(const RoutePoint& p) const {
  return partition_ns + evicted_share(p.working_set, cache_bytes) *
                            exposed_share(p.streams, prefetch_streams, prefetched_share) *
                            (miss_row_ns + miss_byte_ns * p.row_bytes);
}

CacheFigures fit_cache(const std::vector<RoutePoint>& points) {
  if (points.size() < 6) throw std::invalid_argument("fit_cache: fewer than 6 points");
  // Coarse to fine over log S, log P and phi, each round around the best.
  double log_s_lo = std::log(256.0 * 1024), log_s_hi = std::log(4.0 * 1024 * 1024 * 1024);
  double log_p_lo = 0, log_p_hi = std::log(1024.0);
  double phi_lo = 0, phi_hi = 1;
  CacheFigures best;
  double best_error = std::numeric_limits<double>::infinity();
  constexpr int kSteps = 16;
  for (int round = 0; round < 5; ++round) {
    double bs = 0, bp = 0, bphi = 0;
    for (int i = 0; i <= kSteps; ++i) {
      for (int j = 0; j <= kSteps; ++j) {
        for (int k = 0; k <= kSteps; ++k) {
          CacheFigures f;
          const double ls = log_s_lo + (log_s_hi - log_s_lo) * i / kSteps;
          const double lp = log_p_lo + (log_p_hi - log_p_lo) * j / kSteps;
          f.cache_bytes = std::exp(ls);
          f.prefetch_streams = std::exp(lp);
          f.prefetched_share = phi_lo + (phi_hi - phi_lo) * k / kSteps;
          const double e = squared_error(points, f);
          if (e < best_error) best_error = e, best = f, bs = ls, bp = lp, bphi = f.prefetched_share;
        }
      }
    }
    // Narrow each range to two steps around the best.
    const double ds = 2 * (log_s_hi - log_s_lo) / kSteps, dp = 2 * (log_p_hi - log_p_lo) / kSteps,
                 dphi = 2 * (phi_hi - phi_lo) / kSteps;
    log_s_lo = bs - ds, log_s_hi = bs + ds;
    log_p_lo = std::max(0.0, bp - dp), log_p_hi = std::min(std::log(1024.0), bp + dp);
    phi_lo = std::max(0.0, bphi - dphi), phi_hi = std::min(1.0, bphi + dphi);
  }
  best.largest_error = fit_linear(points, best);
  return best;
}

TransferFigures fit_transfer(const std::vector<TransferPair>& pairs) {
  // Each pair: large - small = u t + v m, u = 2 (bL - bS), v = 2 (bL EL - bS ES).
  double uu = 0, uv = 0, vv = 0, ud = 0, vd = 0;
  for (const TransferPair& p : pairs) {
    const double u = 2 * (p.large_bytes - p.small_bytes);
    const double v = 2 * (p.large_bytes * p.large_evicted - p.small_bytes * p.small_evicted);
    const double d = p.large_call_ns - p.small_call_ns;
    uu += u * u, uv += u * v, vv += v * v, ud += u * d, vd += v * d;
  }
  TransferFigures f;
  const double det = uu * vv - uv * uv;
  if (std::abs(det) > 1e-30 * uu * vv) {
    f.ns_per_byte = (ud * vv - vd * uv) / det;
    f.miss_ns_per_byte = (uu * vd - uv * ud) / det;
  }
  if (!(std::abs(det) > 1e-30 * uu * vv) || f.miss_ns_per_byte < 0 || f.ns_per_byte <= 0) {
    f.miss_ns_per_byte = 0;
    f.ns_per_byte = uu > 0 ? std::max(0.0, ud / uu) : 0;
  }
  return f;
}

}  // namespace exsim::transport
