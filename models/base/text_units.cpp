#include "models/base/text_units.h"

#include <cmath>

#include <fmt/format.h>

namespace exsim {

std::string format_seconds(double seconds) {
  if (seconds == 0 || seconds >= 1) return fmt::format("{:.3f} s", seconds);
  if (seconds >= 1e-3) return fmt::format("{:.1f} ms", seconds * 1e3);
  return fmt::format("{:.3g} ms", seconds * 1e3);
}

std::string format_signed_percent(double fraction) {
  if (!std::isfinite(fraction)) return "n/a";
  return fmt::format("{:+.1f}%", 100 * fraction);
}

}  // namespace exsim
