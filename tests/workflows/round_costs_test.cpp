// Which calibration a validation round's runs are judged with
// (workflows/suite_measurement.h: choose_round_costs).
#include <string>

#include <doctest/doctest.h>

#include "models/scenario/cost_figures.h"
#include "transport/calibration/calibrate.h"
#include "workflows/suite_measurement.h"

namespace exsim::workflows {
namespace {

// Two repetitions of every measured figure at a value within its bounds,
// rpc_cpu_us at `rpc_us`, around speed probes of `speed_us`; `steady` of the
// two kept as steady.
transport::CalibrationSamples calibration(double rpc_us, double speed_us, int steady) {
  transport::CalibrationSamples s;
  for (const CostFigure& figure : cost_figures()) {
    if (figure.summary == CostFigure::Summary::kNotMeasured) continue;
    double least = 0, most = 0;
    const std::string key(figure.key);
    const double value = transport::figure_bounds(key, least, most) ? (least + most) / 2 : 1;
    s.figures[key] = {value, value};
  }
  s.figures["rpc_cpu_us"] = {rpc_us, rpc_us};
  s.probes_us = {speed_us, speed_us, speed_us, speed_us};
  s.call_probes_us = {10, 10, 10, 10};
  s.wanted = 2;
  s.steady = steady;
  s.unsteady = 2 - steady;
  return s;
}

TEST_CASE("a round takes both calibrations, the one before, the one after, or sets its runs aside") {
  const validate::MachineProbes start{900, 10};
  const auto steady_before = calibration(10, 900, 2), noisy_before = calibration(10, 900, 1);
  const auto steady_after = calibration(30, 900, 2), noisy_after = calibration(30, 900, 1);

  const RoundCosts both = choose_round_costs(steady_before, steady_after, start);
  CHECK_FALSE(both.set_aside);
  CHECK(both.note.empty());
  CHECK(both.profile.rpc_cpu_us == doctest::Approx(20));  // the median of 10, 10, 30, 30

  const RoundCosts before = choose_round_costs(steady_before, noisy_after, start);
  CHECK_FALSE(before.set_aside);
  CHECK(before.profile.rpc_cpu_us == doctest::Approx(10));
  CHECK(before.probes.speed_us == 900);
  CHECK(before.note.find("calibration before it alone") != std::string::npos);

  // The speed changed over the round (after at 1100 against 900): the one before.
  const RoundCosts drifted = choose_round_costs(steady_before, calibration(30, 1100, 2), start);
  CHECK(drifted.profile.rpc_cpu_us == doctest::Approx(10));
  CHECK(drifted.note.find("speed changed by 22%") != std::string::npos);

  // The one before noisy: the one after alone, the runs' costs moved against its probes.
  const RoundCosts after = choose_round_costs(noisy_before, calibration(30, 950, 2), start);
  CHECK_FALSE(after.set_aside);
  CHECK(after.profile.rpc_cpu_us == doctest::Approx(30));
  CHECK(after.probes.speed_us == 950);
  CHECK(after.note.find("calibration after it alone") != std::string::npos);

  // ... unless the machine moved further than costs are moved (1300 against 900).
  CHECK(choose_round_costs(noisy_before, calibration(30, 1300, 2), start).set_aside);

  const RoundCosts neither = choose_round_costs(noisy_before, noisy_after, start);
  CHECK(neither.set_aside);
  CHECK(neither.note.find("before and after it were too noisy") != std::string::npos);
}

}  // namespace
}  // namespace exsim::workflows
