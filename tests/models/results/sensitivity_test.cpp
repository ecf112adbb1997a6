// Each cost alone over its range: which costs turn the choice, ties apart;
// the ends of a figure, zeros included; results written and read back.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "models/base/json_reader.h"
#include "models/results/results_reader.h"
#include "models/results/sensitivity.h"
#include "models/scenario/cost_figures.h"
#include "models/scenario/scenario_loader.h"

namespace exsim {
namespace {

RunResult result(const std::string& policy, double wall, std::vector<CostSwing> swings, double cheap = -1,
                 double dear = -1) {
  RunResult r;
  r.policy = policy;
  r.wall_s = wall;
  r.sensitivity = std::move(swings);
  if (cheap >= 0) r.wall_range = {cheap, dear, "test", 0};
  return r;
}

TEST_CASE("a cost whose range lets another policy win by more than a tie turns the choice") {
  // A is faster as simulated; at lz4's dear end B wins by 5%; at rpc's cheap end B is ahead by 0.2%: a tie.
  const std::vector<RunResult> results = {
      result("A", 1.0, {{"lz4_compress_bytes_per_s", 2, 1, 0.9, 1.2}, {"rpc_cpu_us", 5, 20, 0.99, 1.01}}, 0.8, 1.3),
      result("B", 1.02, {{"lz4_compress_bytes_per_s", 2, 1, 0.95, 1.14}, {"rpc_cpu_us", 5, 20, 0.988, 1.05}}, 0.85, 1.35)};
  const SensitivityVerdict v = sensitivity_verdict(results);
  CHECK(v.fastest == "A");
  CHECK(v.costs_moved == 2);
  REQUIRE(v.turns.size() == 1);
  CHECK(v.turns[0].cost == "lz4_compress_bytes_per_s");
  CHECK_FALSE(v.turns[0].cheap_end);
  CHECK(v.turns[0].instead == "B");
  CHECK(v.turns[0].lead == doctest::Approx(0.05));
  REQUIRE(v.ties.size() == 1);
  CHECK(v.ties[0].cost == "rpc_cpu_us");
  CHECK_FALSE(v.holds());
  CHECK(v.words().find("turns on lz4_compress_bytes_per_s (at its dear end B is the fastest, by 5.0%)") !=
        std::string::npos);
  // Without the lz4 turn, the pick holds, the tie said as one.
  std::vector<RunResult> held = results;
  held[1].sensitivity[0].wall_dear_s = 1.3;
  const SensitivityVerdict h = sensitivity_verdict(held);
  CHECK(h.holds());
  CHECK(h.words().find("A is the fastest at both ends of each of 2 costs' ranges") == 0);
  CHECK(h.words().find("a tie") != std::string::npos);
  // Results without a sensitivity do not compete.
  held.push_back(result("C", 0.5, {}));
  CHECK(sensitivity_verdict(held).fastest == "A");
}

TEST_CASE("a figure's ends: its spread relative to its value, a zero's where it could be, a share either way") {
  CostProfile costs = reference_cost_profile();
  const CostFigure& lz4 = *find_cost_figure("lz4_compress_bytes_per_s");
  const CostFigure& row = *find_cost_figure("serialize_row_ns");
  const CostFigure& share = *find_cost_figure("prefetched_miss_share");
  // The reference states 422-780 MB/s around 640: a rate is cheap at its high end.
  auto ends = figure_ends(costs, lz4);
  REQUIRE(ends);
  CHECK(ends->cheap == doctest::Approx(7.8e8));
  CHECK(ends->dear == doctest::Approx(4.22e8));
  // Set to 320 MB/s, the range moves with it: 211-390.
  lz4.set(costs, 3.2e8);
  ends = figure_ends(costs, lz4);
  CHECK(ends->cheap == doctest::Approx(3.9e8));
  // A figure at 0 moves over where it could be instead: 0 to 14 ns.
  ends = figure_ends(costs, row);
  REQUIRE(ends);
  CHECK(ends->cheap == 0);
  CHECK(ends->dear == 14);
  // 20% either way of a share, kept within [0, 1].
  share.set(costs, 0.9);
  ends = figure_ends(costs, share, 0.2);
  CHECK(ends->cheap == doctest::Approx(0.72));
  CHECK(ends->dear == 1);
  // Without a spread or a share, a zero cannot move.
  costs.spread.clear();
  CHECK_FALSE(figure_ends(costs, row, 0.2));
  CHECK_FALSE(figure_ends(costs, *find_cost_figure("wire_overhead_bytes"), 0.2));
}

TEST_CASE("a call's CPU among many calls, none in the profile, ranges over a share of rpc_cpu_us") {
  // The reference has no rpc_cpu_busy_us (a call costs rpc_cpu_us whatever
  // shares its connection) and states 0.10 to 1 of rpc_cpu_us (11 us).
  CostProfile costs = reference_cost_profile();
  REQUIRE(costs.rpc_cpu_busy_us < 0);
  const CostFigure& busy = *find_cost_figure("rpc_cpu_busy_us");
  auto ends = figure_ends(costs, busy);
  REQUIRE(ends);
  CHECK(ends->cheap == doctest::Approx(1.1));
  CHECK(ends->dear == doctest::Approx(11));
  // rpc_cpu_us set to 20 moves the range with it.
  costs.rpc_cpu_us = 20;
  ends = figure_ends(costs, busy);
  CHECK(ends->cheap == doctest::Approx(2));
  CHECK(ends->dear == doctest::Approx(20));
  // At the corners it is a share of the corner's rpc_cpu_us: none at the dear
  // one (5.5 to 22 us around 11), a tenth at the cheap one.
  costs = reference_cost_profile();
  const CostProfile dear = cost_corner(costs, CostCorner::kDear);
  CHECK(dear.rpc_cpu_us == doctest::Approx(22));
  CHECK(dear.rpc_cpu_busy_us == doctest::Approx(22));
  CHECK(dear.rpc_cpu_queued_us == doctest::Approx(22));
  const CostProfile cheap = cost_corner(costs, CostCorner::kCheap);
  CHECK(cheap.rpc_cpu_us == doctest::Approx(5.5));
  CHECK(cheap.rpc_cpu_busy_us == doctest::Approx(0.55));
  CHECK(cheap.rpc_cpu_queued_us == doctest::Approx(1.98));
  // A figure of its own keeps its own spread, whatever rpc_cpu_us is.
  costs.rpc_cpu_busy_us = 3;
  ends = figure_ends(costs, busy);
  CHECK(ends->cheap == doctest::Approx(0.3));
  CHECK(ends->dear == doctest::Approx(3));
  // Without a spread, none stays none.
  costs.spread.clear();
  costs.rpc_cpu_busy_us = -1;
  CHECK_FALSE(figure_ends(costs, busy));
  CHECK_FALSE(figure_ends(costs, busy, 0.2));
}

TEST_CASE("a result's sensitivity is written and read back") {
  RunResult r = result("A", 1.0, {{"cache_bytes", 5.6e7, 1.4e7, 0.9, 1.1}});
  const nlohmann::ordered_json json = nlohmann::ordered_json::parse(results_to_json({r}));
  Diagnostics diagnostics("test");
  const JsonNode node(&json[0], "/0", &diagnostics);
  const std::vector<CostSwing> back = read_sensitivity(node);
  diagnostics.throw_if_errors();
  REQUIRE(back.size() == 1);
  CHECK(back[0].cost == "cache_bytes");
  CHECK(back[0].cheap == 5.6e7);
  CHECK(back[0].wall_dear_s == 1.1);
}

}  // namespace
}  // namespace exsim
