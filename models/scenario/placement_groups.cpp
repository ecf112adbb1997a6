#include "models/scenario/placement_groups.h"

#include <algorithm>
#include <limits>
#include <numeric>
#include <utility>

#include <fmt/format.h>

namespace exsim {
namespace {

// RTTs stay in nanoseconds (as doubles: a two-way mean may end in .5) until
// they are reported, so that ratios of round values are exact.
struct HostPair {
  int a = 0, b = 0;
  double rtt_ns = 0;
};

double to_ms(double ns) { return ns / 1e6; }

// Union-find with path halving: enough for the hosts of any real cluster.
class DisjointSets {
 public:
  explicit DisjointSets(int count) : parent_(static_cast<size_t>(count)) {
    std::iota(parent_.begin(), parent_.end(), 0);
  }
  int root(int x) {
    while (parent_[x] != x) x = parent_[x] = parent_[parent_[x]];
    return x;
  }
  void join(int x, int y) { parent_[root(x)] = root(y); }

 private:
  std::vector<int> parent_;
};

PlacementGroups one_group(int hosts, const std::vector<HostPair>& pairs, std::string why) {
  PlacementGroups result;
  result.group_of.assign(static_cast<size_t>(hosts), 0);
  result.count = hosts > 0 ? 1 : 0;
  for (const HostPair& pair : pairs) result.within_max_ms = std::max(result.within_max_ms, to_ms(pair.rtt_ns));
  result.why = std::move(why);
  return result;
}

}  // namespace

PlacementGroups find_placement_groups(const LatencyMatrix& rtt) {
  const int hosts = rtt.hosts();
  std::vector<HostPair> pairs;
  for (int a = 0; a < hosts; ++a)
    for (int b = a + 1; b < hosts; ++b)
      pairs.push_back({a, b, static_cast<double>(rtt.rtt(a, b) + rtt.rtt(b, a)) / 2});
  if (hosts == 0) return one_group(0, pairs, "There are no hosts to group.");
  if (hosts == 1) return one_group(1, pairs, "A single host is one group.");
  // One RTT alone cannot tell a far pair from a near one.
  if (hosts == 2) return one_group(2, pairs, "Two hosts have one RTT and nothing to compare it with, so they are one group.");

  std::vector<double> distinct;
  for (const HostPair& pair : pairs) distinct.push_back(pair.rtt_ns);
  std::sort(distinct.begin(), distinct.end());
  distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
  size_t cut = 0;  // the split joins pairs with RTT <= distinct[cut]
  double step = 1;
  for (size_t i = 0; i + 1 < distinct.size(); ++i) {
    const double ratio = distinct[i + 1] / std::max(distinct[i], 1.0);  // 1 ns floor: no division by zero
    if (ratio > step) step = ratio, cut = i;  // strict: of equal steps the lower, finer split wins
  }
  if (step < kPlacementGapRatio)
    return one_group(hosts, pairs,
                     fmt::format("One group: the largest step between sorted host-pair RTTs is {:.2f}x, below the "
                                 "{:.1f}x that separates racks or zones.",
                                 step, kPlacementGapRatio));
  const double step_from_ms = to_ms(distinct[cut]), step_to_ms = to_ms(distinct[cut + 1]);

  DisjointSets sets(hosts);
  for (const HostPair& pair : pairs)
    if (pair.rtt_ns <= distinct[cut]) sets.join(pair.a, pair.b);
  PlacementGroups result;
  std::vector<int> number_of_root(static_cast<size_t>(hosts), -1);
  for (int host = 0; host < hosts; ++host) {
    int& number = number_of_root[sets.root(host)];
    if (number < 0) number = result.count++;  // numbered in order of first host: deterministic
    result.group_of.push_back(number);
  }
  if (result.count == 1)
    return one_group(hosts, pairs,
                     fmt::format("One group: host-pair RTTs step up {:.2f}x from {:.3f} to {:.3f} ms, but the hosts "
                                 "linked by the smaller RTTs chain into a single group.",
                                 step, step_from_ms, step_to_ms));

  double within_max_ns = 0, between_min_ns = std::numeric_limits<double>::infinity();
  for (const HostPair& pair : pairs) {
    if (result.group_of[pair.a] == result.group_of[pair.b])
      within_max_ns = std::max(within_max_ns, pair.rtt_ns);
    else
      between_min_ns = std::min(between_min_ns, pair.rtt_ns);
  }
  // Single linkage keeps between-group RTTs above the cut, but a chain a-b-c
  // can leave a far pair a-c inside a group: check the whole split.
  const double separation = between_min_ns / std::max(within_max_ns, 1.0);
  if (separation < kPlacementGapRatio)
    return one_group(hosts, pairs,
                     fmt::format("One group: host-pair RTTs step up {:.2f}x from {:.3f} to {:.3f} ms, but hosts chained "
                                 "by the smaller RTTs would put {:.3f} ms inside a group against {:.3f} ms between "
                                 "groups, only {:.2f}x apart.",
                                 step, step_from_ms, step_to_ms, to_ms(within_max_ns), to_ms(between_min_ns),
                                 separation));
  result.within_max_ms = to_ms(within_max_ns);
  result.between_min_ms = to_ms(between_min_ns);
  result.why = fmt::format("{} groups: every RTT within a group is at most {:.3f} ms and every RTT between groups at "
                           "least {:.3f} ms, {:.2f}x apart (at least {:.1f}x needed).",
                           result.count, result.within_max_ms, result.between_min_ms, separation, kPlacementGapRatio);
  return result;
}

}  // namespace exsim
