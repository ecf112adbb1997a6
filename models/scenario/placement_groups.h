// Placement groups (racks, availability zones) found from a measured RTT
// matrix, for calibrating a scenario's cluster against a real one.
//
// Method. Each host pair's RTT is the mean of both directions (a measurement
// may differ by direction; grouping is about the pair); the diagonal is
// ignored. The pair RTTs are sorted and the cut goes at the largest *ratio*
// between consecutive values: latency tiers are multiplicative (a cross-rack
// or cross-zone hop typically doubles the RTT or more), so a ratio compares a
// 0.1 -> 0.2 ms step and a 1 -> 2 ms step alike, where a difference would not.
// Of equal steps the lower one wins, the finer split (racks before zones),
// which keeps more of the measured structure; a fixed rule keeps it repeatable.
// Joining every pair at or below the cut (single linkage) gives the groups.
// A split is kept only when every RTT between groups is at least
// kPlacementGapRatio times every RTT within a group. That fails when the
// largest step is too small (no tiers, only noise) or when single linkage
// chained hosts, a-b and b-c close but a-c far, so that a group holds an RTT
// near or above one between groups. Then all hosts are one group: a scenario
// with one group is a safe default, a wrong split is not.
#ifndef EXSIM_MODELS_SCENARIO_PLACEMENT_GROUPS_H_
#define EXSIM_MODELS_SCENARIO_PLACEMENT_GROUPS_H_

#include <string>
#include <vector>

#include "models/scenario/latency_matrix.h"

namespace exsim {

// Medians measured on one switch vary by tens of percent (±20% spans 1.5x at
// most), while a hop through another switch tier doubles the RTT or more.
inline constexpr double kPlacementGapRatio = 1.5;

struct PlacementGroups {
  std::vector<int> group_of;  // by host index; groups numbered 0, 1, ... in order of their first host
  int count = 0;
  double within_max_ms = 0;   // the largest RTT inside any group
  double between_min_ms = 0;  // the smallest RTT between two groups (0 with one group)
  std::string why;            // one sentence for the user: how the split was chosen
};

// Groups hosts so that every RTT within a group is clearly smaller than every
// RTT between groups; with 1 or 2 hosts (nothing to compare), one group.
PlacementGroups find_placement_groups(const LatencyMatrix& rtt);

}  // namespace exsim

#endif  // EXSIM_MODELS_SCENARIO_PLACEMENT_GROUPS_H_
