// The figures of a costs profile, one entry per key, in the order a profile is
// written. Reading a profile (scenario files, results), writing one (calibrate)
// and calibrating it (bounds, summaries) all go through this table, so a new
// cost is one entry here and its field in CostProfile.
#ifndef EXSIM_MODELS_SCENARIO_COST_FIGURES_H_
#define EXSIM_MODELS_SCENARIO_COST_FIGURES_H_

#include <span>
#include <string_view>

#include "models/scenario/costs.h"

namespace exsim {

struct CostFigure {
  // How a profile gives the figure.
  enum class Reading {
    kRate,          // per second, >= 1; required when nothing else gives it
    kOptionalRate,  // per second, >= 0 (0: free)
    kMicros,        // >= 0, at most 10 s
    kNanos,         // >= 0, at most 1 ms
    kBusyMicros,    // as kMicros; absent leaves the figure as it was (< 0: none)
    kBytes,         // a byte size, at most 1 MiB
    kCount,         // an integer, at most 65536 (0: the default)
    kCores,         // an integer in [1, 4096], or null or absent: 0
    kCacheBytes,    // a byte size, at most 1 TiB (0: none)
    kStreams,       // a number >= 0, at most 65536
    kShare,         // a fraction in [0, 1]
  };
  // When a profile is written with it: always (a key left out reads as the
  // reference's value, so 0 must be written), or only when it says something.
  enum class Written { kAlways, kWhenNonNegative, kWhenPositive };
  // What calibrate keeps of its repetitions.
  enum class Summary { kNotMeasured, kMedian, kLeast };

  std::string_view key;
  Reading reading;
  Written written;
  Summary summary;
  // What no machine can measure (calibrate sets a repetition outside them aside).
  double least_measurable, most_measurable;
  double (*get)(const CostProfile&);
  void (*set)(CostProfile&, double);

  // Held and written as an integer.
  constexpr bool integral() const {
    return reading == Reading::kBytes || reading == Reading::kCount || reading == Reading::kCores ||
           reading == Reading::kCacheBytes;
  }
};

// Every figure, in the order a profile is written.
std::span<const CostFigure> cost_figures();
// The figure named `key`, or nullptr.
const CostFigure* find_cost_figure(std::string_view key);

}  // namespace exsim

#endif  // EXSIM_MODELS_SCENARIO_COST_FIGURES_H_
