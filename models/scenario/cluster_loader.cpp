// The "cluster" section: hosts, groups and the RTT between every host pair.
#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "models/base/random.h"
#include "models/scenario/loader_parts.h"

namespace exsim {
namespace {

constexpr double kDefaultSelfRttMs = 0.02;  // assumption: loopback through the process's own RPC port
constexpr double kMaxRttMs = 10000;        // beyond any network this models
// Connections, RTTs and RPC delay lines are kept per host pair: hosts^2 entries.
constexpr std::int64_t kMaxHosts = 1024;

// An RTT rule value: a number, or a [low, high] range sampled per host pair.
struct RttRule {
  double low = 0, high = 0;
  bool present = false;
};

RttRule read_rtt_rule(const JsonNode& node) {
  RttRule rule;
  if (!node.present()) return rule;
  if (node.is_array()) {
    if (node.size() != 2) {
      node.error(fmt::format("expected a number or a [low, high] range in ms, got an array of {} elements",
                             node.size()));
      return rule;
    }
    rule.low = node.element(0).number(0, 0, false, kMaxRttMs);
    rule.high = node.element(1).number(0, 0, false, kMaxRttMs);
    if (rule.high < rule.low) node.error(fmt::format("range [{}, {}] has high < low", rule.low, rule.high));
  } else {
    rule.low = rule.high = node.number(0, 0, false, kMaxRttMs);
  }
  rule.present = true;
  return rule;
}

std::vector<Host> read_hosts(const JsonNode& cluster) {
  std::vector<Host> hosts;
  JsonNode node = cluster.required("hosts");
  JsonNode groups = cluster.member("groups");
  if (node.is_array()) {
    if (groups.present()) groups.error("'groups' goes with a host count (\"hosts\": 5); listed hosts name their group");
    if (node.size() == 0) node.error("expected at least one host");
    if (node.size() > static_cast<size_t>(kMaxHosts)) node.error(fmt::format("at most {} hosts", kMaxHosts));
    std::set<std::string> seen;
    for (size_t i = 0; i < node.size(); ++i) {
      JsonNode h = node.element(i);
      if (!h.expect_object()) continue;
      h.reject_unknown_keys({"name", "group"});
      Host host{h.required("name").string(fmt::format("h{}", i)), h.member("group").string("default")};
      if (!seen.insert(host.name).second) h.member("name").error(fmt::format("duplicate host name '{}'", host.name));
      hosts.push_back(std::move(host));
    }
    return hosts;
  }
  if (!node.present()) return hosts;
  auto count = node.integer(1, 1, kMaxHosts);
  if (!node.is_number()) return hosts;
  if (!groups.present()) {
    for (std::int64_t i = 0; i < count; ++i) hosts.push_back({fmt::format("h{}", i), "default"});
    return hosts;
  }
  if (!groups.expect_object()) return hosts;
  std::int64_t total = 0;
  for (const auto& group : groups.keys()) {
    auto n = groups.member(group).integer(0, 1, kMaxHosts);
    for (std::int64_t i = 0; i < n; ++i) hosts.push_back({fmt::format("h{}", total + i), group});
    total += n;
  }
  // Against the count given, not the stand-in for one out of range (already an error).
  const bool count_given = node.json().is_number_integer() && node.json().get<std::int64_t>() == count;
  if (count_given && total != count) groups.error(fmt::format("groups hold {} hosts but \"hosts\" is {}", total, count));
  return hosts;
}

// The rule for a pair of distinct groups: "a-b" or "b-a", else cross_group.
std::optional<RttRule> pair_rule(const std::map<std::pair<std::string, std::string>, RttRule>& pairs,
                                 const std::string& a, const std::string& b) {
  auto it = pairs.find({std::min(a, b), std::max(a, b)});
  if (it == pairs.end()) return std::nullopt;
  return it->second;
}

// `complete`: every host pair must have a rule. Rules that a matrix or topology
// overrides are only checked for what they say, not for what they leave out.
void fill_from_rules(const JsonNode& rtt, std::uint64_t seed, bool complete, Cluster& cluster) {
  const auto& hosts = cluster.hosts;
  std::set<std::string> group_names;
  for (const auto& h : hosts) group_names.insert(h.group);
  RttRule same, cross, self;
  std::map<std::pair<std::string, std::string>, RttRule> pairs;
  if (rtt.present() && rtt.expect_object()) {
    for (const auto& key : rtt.keys()) {
      JsonNode value = rtt.member(key);
      if (key == "same_group") {
        same = read_rtt_rule(value);
      } else if (key == "cross_group") {
        cross = read_rtt_rule(value);
      } else if (key == "self") {
        self = read_rtt_rule(value);
      } else {
        // A group pair "a-b"; group names may contain '-', so try every split.
        bool matched = false;
        for (size_t dash = key.find('-'); dash != std::string::npos; dash = key.find('-', dash + 1)) {
          std::string a = key.substr(0, dash), b = key.substr(dash + 1);
          if (group_names.count(a) && group_names.count(b) && a != b) {
            pairs[{std::min(a, b), std::max(a, b)}] = read_rtt_rule(value);
            matched = true;
            break;
          }
        }
        if (!matched) {
          std::string groups;
          std::vector<std::string> names = {"same_group", "cross_group", "self"};
          for (const auto& g : group_names) groups += (groups.empty() ? "" : ", ") + g;
          for (const auto& a : group_names) {
            for (const auto& b : group_names) {
              if (a != b) names.push_back(a + "-" + b);
            }
          }
          const std::string hint = closest_name(key, names);
          value.error(fmt::format("unknown key '{}'{}: expected same_group, cross_group, self, or a pair "
                                  "\"a-b\" of distinct groups (groups: {})",
                                  key, hint.empty() ? "" : fmt::format(" (did you mean '{}'?)", hint), groups));
        }
      }
    }
  }
  const int n = static_cast<int>(hosts.size());
  cluster.rtt = LatencyMatrix(n);
  std::set<std::pair<std::string, std::string>> missing;
  for (int i = 0; i < n; ++i) {
    for (int j = i; j < n; ++j) {
      std::optional<RttRule> rule;
      if (i == j) {
        rule = self.present ? self : RttRule{kDefaultSelfRttMs, kDefaultSelfRttMs, true};
      } else if (hosts[i].group == hosts[j].group) {
        if (same.present) rule = same;
      } else {
        rule = pair_rule(pairs, hosts[i].group, hosts[j].group);
        if (!rule && cross.present) rule = cross;
      }
      if (!rule) {
        missing.insert({std::min(hosts[i].group, hosts[j].group), std::max(hosts[i].group, hosts[j].group)});
        continue;
      }
      Random random(derive_seed(seed, 0x525454 /* "RTT" */, static_cast<std::uint64_t>(i),
                                static_cast<std::uint64_t>(j)));
      double ms = rule->low == rule->high ? rule->low : rule->low + (rule->high - rule->low) * random.uniform();
      cluster.rtt.set_rtt(i, j, ms_to_ns(ms));
      cluster.rtt.set_rtt(j, i, ms_to_ns(ms));
    }
  }
  if (!complete) return;
  for (const auto& [a, b] : missing) {
    JsonNode at = rtt.present() ? rtt : JsonNode(nullptr, "/cluster/rtt_ms", &rtt.diagnostics());
    at.error(a == b ? fmt::format("no RTT for hosts within group '{}': add rtt_ms.same_group", a)
                    : fmt::format("no RTT between groups '{}' and '{}': add rtt_ms.cross_group or "
                                  "rtt_ms.\"{}-{}\"",
                                  a, b, a, b));
  }
}

void fill_from_matrix(const JsonNode& matrix, Cluster& cluster) {
  const size_t n = cluster.hosts.size();
  cluster.rtt = LatencyMatrix(static_cast<int>(n));
  if (!matrix.expect_array()) return;
  if (matrix.size() != n) {
    matrix.error(fmt::format("expected a square {}x{} matrix (one row per host), got {} rows", n, n, matrix.size()));
    return;
  }
  std::vector<std::vector<double>> ms(n, std::vector<double>(n, 0));
  // An entry that is no RTT is said once, where it is: not again as asymmetry.
  std::vector<std::vector<bool>> valid(n, std::vector<bool>(n, true));
  for (size_t i = 0; i < n; ++i) {
    JsonNode row = matrix.element(i);
    if (!row.expect_array()) return;
    if (row.size() != n) {
      row.error(fmt::format("expected a square {}x{} matrix, row {} has {} entries", n, n, i, row.size()));
      return;
    }
    for (size_t j = 0; j < n; ++j) {
      const JsonNode entry = row.element(j);
      ms[i][j] = entry.number(0, 0, false, kMaxRttMs);  // 0 for an entry it refused, saying why
      valid[i][j] = entry.is_number() && entry.json().get<double>() == ms[i][j];
    }
  }
  for (size_t i = 0; i < n; ++i) {
    for (size_t j = 0; j < n; ++j) {
      if (j > i && valid[i][j] && valid[j][i] && std::abs(ms[i][j] - ms[j][i]) > 1e-9) {
        matrix.element(i).element(j).error(
            fmt::format("asymmetric matrix: [{}][{}] = {} but [{}][{}] = {}", i, j, ms[i][j], j, i, ms[j][i]));
      }
      cluster.rtt.set_rtt(static_cast<int>(i), static_cast<int>(j), ms_to_ns(ms[i][j]));
    }
  }
}

void fill_from_topology(const JsonNode& node, Cluster& cluster) {
  cluster.rtt = LatencyMatrix(static_cast<int>(cluster.hosts.size()));
  if (!node.expect_object()) return;
  node.reject_unknown_keys({"switches", "links", "self_rtt_ms"});
  Topology topology;
  JsonNode switches = node.member("switches");
  if (switches.present() && switches.expect_array()) {
    for (size_t i = 0; i < switches.size(); ++i) topology.switches.push_back(switches.element(i).string());
  }
  JsonNode links = node.required("links");
  if (links.present() && links.expect_array()) {
    for (size_t i = 0; i < links.size(); ++i) {
      JsonNode link = links.element(i);
      if (!link.expect_object()) continue;
      link.reject_unknown_keys({"from", "to", "rtt_ms"});
      topology.links.push_back({link.required("from").string(), link.required("to").string(),
                                link.required("rtt_ms").number(0, 0, false, kMaxRttMs)});
    }
  }
  if (!node.diagnostics().ok()) return;
  std::vector<std::string> names;
  for (const auto& h : cluster.hosts) names.push_back(h.name);
  std::string error;
  auto ms = topology_rtt_ms(topology, names, node.member("self_rtt_ms").number(kDefaultSelfRttMs, 0, false, kMaxRttMs),
                            error);
  if (!error.empty()) {
    node.error(error);
    return;
  }
  for (size_t i = 0; i < names.size(); ++i) {
    for (size_t j = 0; j < names.size(); ++j) {
      cluster.rtt.set_rtt(static_cast<int>(i), static_cast<int>(j), ms_to_ns(ms[i][j]));
    }
  }
}

}  // namespace

Cluster read_cluster(const JsonNode& node, std::uint64_t seed) {
  Cluster cluster;
  if (!node.expect_object()) return cluster;
  node.reject_unknown_keys(
      {"hosts", "groups", "cores_per_host", "nic_gbps", "memory_per_host", "rtt_ms", "rtt_matrix_ms", "topology"});
  cluster.hosts = read_hosts(node);
  cluster.cores_per_host = static_cast<int>(node.member("cores_per_host").integer(16, 1, 4096));
  cluster.nic_gbps = node.member("nic_gbps").number(10, 0.001, false, 1e5);
  cluster.memory_per_host = node.member("memory_per_host").size(0, 1, JsonNode::kMaxSize);
  JsonNode matrix = node.member("rtt_matrix_ms");
  JsonNode topology = node.member("topology");
  if ((matrix.present() || topology.present()) && node.member("rtt_ms").present()) {
    // The matrix (or topology) overrides the rules (scenario format), which
    // must still be well formed: a typo there is an error all the same.
    Cluster unused = cluster;
    fill_from_rules(node.member("rtt_ms"), seed, /*complete=*/false, unused);
  }
  if (matrix.present() && topology.present()) {
    topology.error("give either rtt_matrix_ms or topology, not both");
  } else if (matrix.present()) {
    fill_from_matrix(matrix, cluster);
  } else if (topology.present()) {
    fill_from_topology(topology, cluster);
  } else {
    fill_from_rules(node.member("rtt_ms"), seed, /*complete=*/true, cluster);
  }
  return cluster;
}

}  // namespace exsim
