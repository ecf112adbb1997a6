#include "transport/testbed/probe_limits.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace exsim::transport {

std::string unscalable(double before, double after, double costs, double deviation, const ProbeLimits& limits,
                       const char* what) {
  if (deviation <= limits.steady) return "";
  const double changed = std::max(before, after) / std::min(before, after) - 1;
  if (changed > limits.changed) {
    return fmt::format("{} changed by {:.0f}% over the run (probes {:.1f} and {:.1f} us against {:.1f})", what,
                       100 * changed, before, after, costs);
  }
  const double slowdown = (before + after) / 2 / costs;
  if (std::abs(slowdown - 1) > limits.scalable) {
    return fmt::format("{} ran {:.0f}% {} than when its costs were measured (probes {:.1f} and {:.1f} us against "
                       "{:.1f}), more than the {:.0f}% they are moved by",
                       what, 100 * std::abs(slowdown - 1), slowdown > 1 ? "slower" : "faster", before, after, costs,
                       100 * limits.scalable);
  }
  return "";
}

double calls_factor(double before_us, double after_us, double usual_us) {
  const double slowdown = call_slowdown(before_us, after_us, usual_us);
  if (slowdown <= kCallProbeLimits.steady) return 1;
  if (!unscalable(before_us, after_us, usual_us, slowdown, kCallProbeLimits, "calls").empty()) return 0;
  return (before_us + after_us) / 2 / usual_us;
}

}  // namespace exsim::transport
