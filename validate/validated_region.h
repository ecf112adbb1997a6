// Where the model was checked against the real exchange, and how far a
// prediction lies from it.
//
// Each row of the validation suite is a point: its hash senders' channels and
// full channel batch, RPCs in flight, MT_DOP and largest RTT, with the
// wall-clock error the suite measured there. A prediction's point is covered
// when one row reaches at least as far in channels and batch together (the
// cache's cost grows with both: 12 channels of 128K say nothing of 80 of
// 512K), and the suite's rows span its in-flight count, MT_DOP and RTT.
// Outside, a warning names each gap and the nearest row's error.
//
// The suite's points travel with exsim: scenarios/validation/region.json,
// written from the recorded measurement (`validate --measured M SUITE
// --region OUT`) and built into the binary, so that the warning goes when a
// suite row comes to cover the point.
#ifndef EXSIM_VALIDATE_VALIDATED_REGION_H_
#define EXSIM_VALIDATE_VALIDATED_REGION_H_

#include <string>
#include <vector>

#include "models/scenario/scenario.h"
#include "validate/comparison.h"

namespace exsim::validate {

struct RegionPoint {
  double channels = 0;   // a hash sender's channels, the most over the hash exchanges (0: none)
  double batch_bytes = 0;  // its full channel batch, tuple bytes, of the exchange with the most channels x bytes
  int in_flight = 1;
  int mt_dop = 0;
  double rtt_ms = 0;  // the largest RTT between two hosts
};

struct RegionRow {
  std::string label;  // "scenario / policy"
  RegionPoint point;
  double wall_error = 0;  // signed, measured by the suite
};

// A scenario's point under `policy`.
RegionPoint region_point(const Scenario& scenario, const Policy& policy);

// The suite's rows from a validation's steady comparisons: each row's
// scenario file loaded (from `suite_dir` when given, by name).
std::vector<RegionRow> region_rows(const std::vector<Comparison>& comparisons, const std::string& suite_dir);

// region.json and back. Throws InputError naming the file and JSON pointer.
std::string region_json(const std::vector<RegionRow>& rows);
std::vector<RegionRow> parse_region(const std::string& text, const std::string& file);
// The region built into exsim (scenarios/validation/region.json at build time).
const std::vector<RegionRow>& builtin_region();
// The median of the rows' wall-clock errors, unsigned (0 for none): the
// model's validated median error, which sets the recommendations' margin
// (models/results/decision_rule.h).
double median_wall_error(const std::vector<RegionRow>& rows);

struct RegionCheck {
  bool inside = true;
  std::vector<std::string> gaps;  // each in words: "80 channels a sender with 512K batches (the suite: ...)"
  std::string nearest;            // the nearest row's label
  double nearest_error = 0;
  // "outside the validated region: GAPS; the nearest row, LABEL, was -4.5% off"; "" inside.
  std::string warning() const;
};
RegionCheck check_region(const RegionPoint& point, const std::vector<RegionRow>& rows);

}  // namespace exsim::validate

#endif  // EXSIM_VALIDATE_VALIDATED_REGION_H_
