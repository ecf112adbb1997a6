// Parameter sweeps: the cartesian product of a scenario's variations, numbered
// so that a sweep too large for one machine runs as independent shards whose
// results merge back into exactly the unsharded sweep's.
#ifndef EXSIM_MODELS_RESULTS_SWEEP_H_
#define EXSIM_MODELS_RESULTS_SWEEP_H_

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace exsim {

// One --vary KEY=V1,V2,...: a scenario path (as --set takes it) and its values.
struct Variation {
  std::string key;
  std::vector<std::string> values;
};

// UsageError naming the flag when `spec` is not KEY=V1[,V2...] with a key and no empty value.
Variation parse_variation(std::string_view spec);

// One point of the product: its number and its KEY=VALUE settings, in the
// variations' order.
struct SweepPoint {
  std::size_t index = 0;
  std::vector<std::pair<std::string, std::string>> settings;
  std::vector<std::string> overrides() const;  // "KEY=VALUE", for the scenario loader
  std::string label() const;                   // "KEY=VALUE KEY=VALUE"
};

class SweepPlan {
 public:
  // UsageError when there are no variations, a key repeats, or the product exceeds a million points.
  explicit SweepPlan(std::vector<Variation> variations);
  std::size_t size() const { return size_; }
  // Points are numbered in mixed radix, the last variation changing fastest.
  SweepPoint point(std::size_t index) const;
  const std::vector<Variation>& variations() const { return variations_; }

 private:
  std::vector<Variation> variations_;
  std::size_t size_ = 1;
};

// --shard K/N: the points whose index is K-1 modulo N.
struct Shard {
  int k = 1, n = 1;
  bool holds(std::size_t index) const { return index % static_cast<std::size_t>(n) == static_cast<std::size_t>(k - 1); }
};
// UsageError unless `spec` is K/N with 1 <= K <= N.
Shard parse_shard(std::string_view spec);

// Result lines of one or more sweep files (JSON Lines, each object with
// "sweep": {"point": I, "points": N, ...}), joined and ordered by point, then
// by policy in the order the lines first named it; each line kept as written.
// InputError naming the file and line for a line that is not a sweep
// result, for sweeps that disagree on their number of points or variations,
// for a (point, policy) seen twice, and for points missing from every file.
std::string merge_sweep_results(const std::vector<std::pair<std::string, std::string>>& files);

}  // namespace exsim

#endif  // EXSIM_MODELS_RESULTS_SWEEP_H_
