// The search behind `exsim advise`: on a model of wall-clock whose answer is
// known by construction, and on the simulator against every candidate
// simulated (the grid), it picks the grid's pick in fewer simulations.
#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <functional>
#include <optional>
#include <set>
#include <string>

#include <fmt/format.h>

#include "workflows/policy_search.h"
#include "models/results/decision_rule.h"
#include "models/rules/policy_notes.h"
#include "plots/recommendation.h"
#include "sim/simulate.h"
#include "tests/test_util.h"

namespace exsim {
namespace {

using workflows::SearchOptions;
using workflows::SearchOutcome;

// A latency-bound hash exchange among 4 hosts, 0.5 ms apart.
const char* kScenario = R"({"name": "search", "seed": 3, "mt_dop": 1,
  "cluster": {"hosts": 4, "rtt_ms": {"same_group": 0.5}},
  "policies": {"16K": {"buffer": {"flat": "16K"}}},
  "workload": {"queries": [{"name": "q", "exchanges": [{"id": "x", "kind": "hash", "rows": 1000000,
    "row": {"fixed_bytes": 24, "varlen_bytes": 16}, "lz4_ratio": 0.5}]}]}})";

// The per-channel buffer a policy gives the exchange.
Bytes channel_bytes(const Scenario& s, const Policy& p) { return channel_buffers(s, p).most; }

// The grid's answer: the fastest feasible, and of those within `tie` of it the least memory.
std::optional<std::string> grid_pick(const SearchOutcome& grid, double tie) {
  double fastest = INFINITY;
  for (const auto& c : grid.candidates) {
    if (c.feasible && c.result) fastest = std::min(fastest, c.result->wall_s);
  }
  std::optional<std::string> best;
  Bytes least = 0;
  for (const auto& c : grid.candidates) {
    if (c.feasible && c.result && c.result->wall_s <= fastest * (1 + tie) && (!best || c.memory < least)) {
      best = c.policy.name;
      least = c.memory;
    }
  }
  return best;
}

// The search and the grid on `run`: the search picks what the grid does, in
// fewer simulations. Returns the search's outcome.
SearchOutcome search_matching_grid(const Scenario& s, SearchOptions options,
                                   const std::function<RunResult(const Policy&)>& run) {
  const auto space = workflows::default_search_space(s.policies[0]);
  SearchOutcome found = workflows::search_policies(s, space, options, run);
  options.grid = true;
  const SearchOutcome grid = workflows::search_policies(s, space, options, run);
  REQUIRE(found.best);
  CHECK(grid_pick(grid, options.margin) == found.candidates[*found.best].policy.name);
  CHECK(found.simulations < grid.simulations);
  return found;
}

TEST_CASE("a model with a known answer: the largest buffer that fits, at the in-flight count that pays") {
  const Scenario s = test::scenario_from(kScenario);
  // Wall-clock falls with the per-channel buffer until 256K and with in-flight
  // RPCs up to 2; beyond, nothing changes. So the answer is the least memory
  // that reaches 256K a channel at 2 in flight, if the budget allows it.
  std::atomic<int> calls{0};
  const auto model = [&](const Policy& p) {
    ++calls;
    RunResult r;
    const double kib = static_cast<double>(std::min<Bytes>(channel_bytes(s, p), 256 * kKiB)) / 1024;
    r.wall_s = 1.0 + 64.0 / kib / std::min(p.in_flight, 2);
    return r;
  };
  SearchOptions options;
  options.budget = 64 * kMiB;
  options.jobs = 2;
  const auto space = workflows::default_search_space(s.policies[0]);
  const SearchOutcome found = workflows::search_policies(s, space, options, model);
  REQUIRE(found.best);
  const auto& best = found.candidates[*found.best];
  CHECK(best.feasible);
  CHECK(best.policy.in_flight == 2);
  CHECK(channel_bytes(s, best.policy) == 256 * kKiB);
  CHECK(found.simulations == calls.load());
  options.grid = true;
  calls = 0;
  const SearchOutcome grid = workflows::search_policies(s, space, options, model);
  CHECK(grid_pick(grid, options.margin) == best.policy.name);
  // A few, not the grid: each chain's top, the size below the top of each
  // chain far from the fastest (it may be rising there), and bisections.
  CHECK(found.simulations * 5 < grid.simulations * 3);
  // Every candidate explored that another beats on both counts is marked so.
  for (const auto& c : found.candidates) {
    if (c.result && c.feasible && c.result->wall_s > best.result->wall_s && c.memory > best.memory) CHECK(c.dominated);
  }
}

// Every candidate of the default space within 1G, each "simulated" to nothing.
SearchOutcome whole_space(const Scenario& s) {
  SearchOptions options;
  options.budget = kGiB;
  options.grid = true;
  return workflows::search_policies(s, workflows::default_search_space(s.policies[0]), options,
                                    [](const Policy&) { return RunResult{}; });
}

TEST_CASE("beside each flat power of two, the largest size whose batches fit one doubling down") {
  const Scenario s = test::scenario_from(kScenario);
  const SearchOutcome grid = whole_space(s);
  std::vector<Bytes> flat;
  for (const auto& c : grid.candidates) {
    if (c.policy.buffer.kind == BufferSizing::Kind::kFlat && c.policy.in_flight == 1) flat.push_back(c.policy.buffer.flat);
  }
  // By hand: rows of 24 + 16 B, a batch of flat/24 rows, LZ4's output kept, so a
  // buffer takes the room of LZ4's bound of its batch. At 76K, 3242 rows hold
  // 129,680 B, bound 130,204 B: within 128 KiB. At 77K, 3285 rows hold
  // 131,400 B: past it, into 256 KiB, as 128K's 5461 rows are.
  CHECK(std::count(flat.begin(), flat.end(), 76 * kKiB) == 1);
  CHECK(std::count(flat.begin(), flat.end(), 77 * kKiB) == 0);
  CHECK(std::is_sorted(flat.begin(), flat.end()));
  Policy p = s.policies[0];
  const auto memory = [&](Bytes size) {
    p.buffer.flat = size;
    return workflows::static_memory(s, p, workflows::MemoryMeasure::kWorst);
  };
  CHECK(memory(76 * kKiB) * 2 <= memory(128 * kKiB) + 64 * kKiB);  // about half: one doubling down
  CHECK(memory(77 * kKiB) > memory(128 * kKiB) * 9 / 10);  // the data as 128K's; fewer offsets
  // Every size between two powers of two is the largest that saves a quarter.
  for (std::size_t i = 0; i + 1 < flat.size(); ++i) {
    if ((flat[i] & (flat[i] - 1)) == 0) continue;  // a power of two
    CHECK(memory(flat[i]) <= 0.75 * static_cast<double>(memory(flat[i + 1])));
    CHECK(memory(flat[i] + kKiB) > 0.75 * static_cast<double>(memory(flat[i + 1])));
  }
}

TEST_CASE("nothing fits: no pick, and nothing simulated") {
  const Scenario s = test::scenario_from(kScenario);
  SearchOptions options;
  options.budget = 1 * kKiB;
  const SearchOutcome found = workflows::search_policies(
      s, workflows::default_search_space(s.policies[0]), options, [](const Policy&) -> RunResult {
        FAIL("a policy over the budget was simulated");
        return {};
      });
  CHECK_FALSE(found.best);
  CHECK(found.simulations == 0);
}

TEST_CASE("a chain that rises past its fastest: the search still finds the grid's pick") {
  const Scenario s = test::scenario_from(kScenario);
  // Fewer round trips with size, but a cost growing with the buffers (memory
  // first written, buffers beyond the cache): fastest at 128K a channel, and
  // 2 in flight costs more memory than it saves.
  const auto model = [&](const Policy& p) {
    RunResult r;
    const double kib = static_cast<double>(channel_bytes(s, p)) / 1024;
    r.wall_s = 1.0 + 64.0 / kib / std::min(p.in_flight, 2) + kib * p.in_flight / 512.0;
    return r;
  };
  SearchOptions options;
  options.budget = 64 * kMiB;
  search_matching_grid(s, options, model);
}

TEST_CASE("budgets that clamp every exchange alike are one candidate") {
  const Scenario s = test::scenario_from(kScenario);
  const SearchOutcome grid = whole_space(s);
  std::set<std::pair<int, Bytes>> seen;  // (in flight, per-channel buffer) of each budget candidate
  for (const auto& c : grid.candidates) {
    if (c.policy.buffer.kind != BufferSizing::Kind::kBudget) continue;
    CHECK(seen.insert({c.policy.in_flight, channel_bytes(s, c.policy)}).second);
  }
  CHECK(seen.size() >= 3 * 3);  // a few distinct budgets per in-flight count
}

TEST_CASE("on the simulator: the grid's pick, in fewer simulations") {
  const Scenario s = test::scenario_from(kScenario);
  SearchOptions options;
  options.budget = 8 * kMiB;
  options.jobs = 2;
  const SearchOutcome found = search_matching_grid(s, options, [&](const Policy& p) { return simulate(s, p); });
  // The pick beats today's 16K: the channel is latency-bound.
  CHECK(found.candidates[*found.best].result->wall_s < 0.8 * simulate(s, s.policies[0]).wall_s);
}

TEST_CASE("advise, the report and a sweep's points recommend by one rule: the same pick on the same results") {
  const Scenario s = test::scenario_from(kScenario);
  // Wall-clock flattening with the per-channel buffer, in flight immaterial:
  // the fastest is the largest that fits, and the least memory within the
  // margin lies well below it. Two environment points, two curves.
  const auto model = [&](double knee_kib) {
    return [&s, knee_kib](const Policy& p) {
      RunResult r;
      r.wall_s = 1.0 + knee_kib / (static_cast<double>(channel_bytes(s, p)) / 1024);
      return r;
    };
  };
  const double margin = decision_margin(0.03);
  SearchOptions options;
  options.budget = 64 * kMiB;
  options.margin = margin;
  options.grid = true;
  report::ReportInput sweep;
  std::vector<std::string> advised;
  for (const double knee : {4.0, 40.0}) {
    const SearchOutcome grid =
        workflows::search_policies(s, workflows::default_search_space(s.policies[0]), options, model(knee));
    REQUIRE(grid.best);
    advised.push_back(grid.candidates[*grid.best].policy.name);
    // The same results as a report reads them, one environment point per curve.
    report::ReportInput one;
    for (const auto& c : grid.candidates) {
      if (!c.result) continue;
      report::Entry e;
      e.label = e.policy = c.policy.name;
      e.scenario = s.name;
      e.source = "simulated";
      e.wall_s = c.result->wall_s;
      e.sender_worst = static_cast<double>(c.memory);
      one.entries.push_back(e);
      e.settings = {{"workload.queries.0.exchanges.0.rows", fmt::format("{}", knee)}};
      sweep.entries.push_back(e);
    }
    const auto reported = report::recommend(one, static_cast<double>(options.budget), margin);
    REQUIRE(reported.size() == 1);
    REQUIRE(reported.front().best);
    CHECK(reported.front().best->policy == advised.back());
    // Not the fastest: the rule took less memory within the margin.
    CHECK(reported.front().fastest != reported.front().best);
  }
  CHECK(advised[0] != advised[1]);
  const auto points = report::recommend(sweep, static_cast<double>(options.budget), margin);
  REQUIRE(points.size() == 2);
  CHECK(points[0].best->policy == advised[0]);
  CHECK(points[1].best->policy == advised[1]);
}

}  // namespace
}  // namespace exsim
