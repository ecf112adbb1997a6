// How far the probes around a measurement (speed_probe.h, call_probe.h) may
// stray and still say how fast its machine ran: within their limits its costs
// are moved to them (models/scenario/costs.h: at_slowdown); beyond, the
// measurement is set aside. One rule for validate's runs and calibrate's
// repetitions; the figures behind each limit are in docs/validation.md, "How
// far a run's probes are trusted".
#ifndef EXSIM_TRANSPORT_TESTBED_PROBE_LIMITS_H_
#define EXSIM_TRANSPORT_TESTBED_PROBE_LIMITS_H_

#include <string>

#include "transport/testbed/call_probe.h"
#include "transport/testbed/speed_probe.h"

namespace exsim::transport {

// How far from its costs' speed, either way, a run's machine may have run for
// them to be moved to it; further, the run is set aside. Within it, a slower
// machine slowed the real exchange in proportion (on a cluster whose hosts all
// ran 15-25% faster than at their calibration, the model's wall-clock errors
// were 19.6% median); a core shared with another process, 50-120% slower,
// slows different work unevenly.
inline constexpr double kScalableSlowdown = 0.35;

// Calls dearer than usual throughout a measurement (its probes before and after
// agreeing) by up to this much move its per-call figures in proportion: in the
// validation gates of one noisy spell, 15 runs with calls 35-54% dearer, their
// costs so moved, erred by 5.1% median and 13.3% at most, as the steady runs.
inline constexpr double kScalableCallSlowdown = 0.55;

// What a measurement's probes of one kind (before and after it) may say and
// still tell how fast its machine ran against its costs' probe.
struct ProbeLimits {
  double steady;    // either probe within it of the costs': the measurement is held to them as they are
  double changed;   // the probes disagree by more: what the machine ran at during it is unknown
  double scalable;  // their mean further away, either way: the costs cannot be moved to it
};

// The speed probe. Its probes may disagree by up to twice its quiet variation:
// in the gates of 22 fresh-clone CI runs in a noisy spell, the 17 runs set
// aside for a speed that changed by 12-24% over them, their costs moved to the
// mean of the two, erred by 5.5% median and 9.8% at the 90th percentile (the
// steady runs: 4.7% and 14.0%).
inline constexpr ProbeLimits kSpeedProbeLimits{kSteadySpeed, 2 * kSteadySpeed, kScalableSlowdown};

// The call probe. Calls that got dearer during a run stay unknown (the 73 runs
// set aside so erred by 7.6% median, 12 of them beyond 15%: 16%, against 9% of
// the steady runs); calls dearer throughout move the per-call costs.
inline constexpr ProbeLimits kCallProbeLimits{kSteadyCalls, kSteadyCalls, kScalableCallSlowdown};

// Why a measurement's probes (before and after it, of speed or calls) cannot
// say how fast its machine ran against its costs' probe (`costs`), in words
// naming `what`; "" when they can: they strayed beyond the costs' quiet
// variation (`deviation`, speed_deviation or call_slowdown, > limits.steady)
// and disagree with each other by more than limits.changed (the machine changed
// during it), or their mean lies more than limits.scalable away.
std::string unscalable(double before, double after, double costs, double deviation, const ProbeLimits& limits,
                       const char* what);

// How much dearer than `usual_us` a measurement's calls were, by its call
// probes before and after it: 1 within their quiet variation; the mean of the
// two over the usual when they say calls were dearer throughout, within
// kCallProbeLimits; 0 when they cannot say (unscalable).
double calls_factor(double before_us, double after_us, double usual_us);

}  // namespace exsim::transport

#endif  // EXSIM_TRANSPORT_TESTBED_PROBE_LIMITS_H_
