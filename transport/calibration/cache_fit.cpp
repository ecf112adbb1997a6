#include "transport/calibration/cache_fit.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "models/rules/cache_load.h"
#include "models/scenario/costs.h"

namespace exsim::transport {
namespace {

// The weight of each point: errors are relative.
double weight(const RoutePoint& p) { return 1.0 / std::max(1e-9, p.route_ns); }

constexpr int kLinear = 5;  // r, a, m_core, miss_row, miss_byte
using Vector = std::array<double, kLinear>;
using Matrix = std::array<Vector, kLinear>;

// Solves a x = b by Gaussian elimination with partial pivoting; false when singular.
bool solve(Matrix a, Vector b, Vector& x) {
  for (int c = 0; c < kLinear; ++c) {
    int pivot = c;
    for (int r = c + 1; r < kLinear; ++r) {
      if (std::abs(a[r][c]) > std::abs(a[pivot][c])) pivot = r;
    }
    if (std::abs(a[pivot][c]) < 1e-300) return false;
    std::swap(a[c], a[pivot]);
    std::swap(b[c], b[pivot]);
    for (int r = 0; r < kLinear; ++r) {
      if (r == c) continue;
      const double f = a[r][c] / a[c][c];
      for (int k = c; k < kLinear; ++k) a[r][k] -= f * a[c][k];
      b[r] -= f * b[c];
    }
  }
  for (int i = 0; i < kLinear; ++i) x[i] = b[i] / a[i][i];
  return true;
}

// The model's terms at a point, each times its linear figure.
Vector columns(const RoutePoint& p, const CacheFigures& f) {
  const double core = evicted_share(p.own_working_set, f.core_cache_bytes);
  const double g =
      evicted_share(p.working_set, f.cache_bytes) * exposed_share(p.streams, f.prefetch_streams, f.prefetched_share);
  return {1.0, p.row_bytes, core * p.row_bytes, g, g * p.row_bytes};
}

// For fixed S, P and phi: the linear figures by weighted least squares, none
// negative (a negative one is held at 0 and the others refitted; a term no
// point has, at 0). Returns the largest relative error, or infinity.
double fit_linear(const std::vector<RoutePoint>& points, CacheFigures& f) {
  std::array<bool, kLinear> free{};
  for (int i = 0; i < kLinear; ++i) {
    for (const RoutePoint& p : points) free[i] = free[i] || columns(p, f)[i] > 0;
  }
  Vector x{};
  for (int attempt = 0; attempt <= kLinear; ++attempt) {
    Matrix a{};
    Vector b{};
    for (const RoutePoint& p : points) {
      const double w = weight(p) * weight(p);
      const Vector c = columns(p, f);
      for (int i = 0; i < kLinear; ++i) {
        const double ci = free[i] ? c[i] : 0;
        b[i] += w * ci * p.route_ns;
        for (int j = 0; j < kLinear; ++j) a[i][j] += w * ci * (free[j] ? c[j] : 0);
      }
    }
    for (int i = 0; i < kLinear; ++i) {
      if (!free[i]) a[i][i] = 1, b[i] = 0;
    }
    if (!solve(a, b, x)) return std::numeric_limits<double>::infinity();
    bool changed = false;
    for (int i = 0; i < kLinear; ++i) {
      if (free[i] && x[i] < 0) free[i] = false, changed = true;
    }
    if (!changed) break;
  }
  f.partition_ns = std::max(0.0, x[0]);
  f.append_byte_ns = std::max(0.0, x[1]);
  f.core_miss_byte_ns = std::max(0.0, x[2]);
  f.miss_row_ns = std::max(0.0, x[3]);
  f.miss_byte_ns = std::max(0.0, x[4]);
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
  const Vector c = columns(p, *this);
  return partition_ns * c[0] + append_byte_ns * c[1] + core_miss_byte_ns * c[2] + miss_row_ns * c[3] +
         miss_byte_ns * c[4];
}

CacheFigures fit_cache(const std::vector<RoutePoint>& points, double core_cache_bytes) {
  if (points.size() < 8) throw std::invalid_argument("fit_cache: fewer than 8 points");
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
          f.core_cache_bytes = core_cache_bytes;
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

double fit_decode_miss(const std::vector<CacheMeasure>& points, double cache_bytes) {
  double n = 0, se = 0, sy = 0, see = 0, sey = 0;
  for (const CacheMeasure& c : points) {
    const double y = c.decode_ns_per_byte;
    const double e = evicted_share(c.route.working_set, cache_bytes);
    n += 1, se += e, sy += y, see += e * e, sey += e * y;
  }
  const double det = n * see - se * se;
  if (n < 2 || det <= 0) return 0;
  return std::max(0.0, (n * sey - se * sy) / det);
}

std::vector<CacheMeasure> median_measures(const std::vector<std::vector<CacheMeasure>>& repetitions) {
  if (repetitions.empty()) return {};
  std::vector<CacheMeasure> out = repetitions.front();
  for (std::size_t i = 0; i < out.size(); ++i) {
    std::vector<double> route, decode;
    for (const auto& r : repetitions) {
      if (r.size() != out.size()) throw std::invalid_argument("median_measures: repetitions of different points");
      route.push_back(r[i].route.route_ns);
      decode.push_back(r[i].decode_ns_per_byte);
    }
    out[i].route.route_ns = spread_of(std::move(route)).median;
    out[i].decode_ns_per_byte = spread_of(std::move(decode)).median;
  }
  return out;
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
  // The per-call part the differences above cancel: each exchange's CPU a call
  // and side less its bytes' at the fitted figures.
  const auto beyond_bytes = [&](double call_ns, double bytes, double evicted) {
    return call_ns / 2 - bytes * (f.ns_per_byte + evicted * f.miss_ns_per_byte);
  };
  double sum = 0;
  for (const TransferPair& p : pairs) {
    sum += beyond_bytes(p.small_call_ns, p.small_bytes, p.small_evicted) +
           beyond_bytes(p.large_call_ns, p.large_bytes, p.large_evicted);
  }
  f.call_ns = pairs.empty() ? 0 : sum / static_cast<double>(2 * pairs.size());
  return f;
}

}  // namespace exsim::transport
