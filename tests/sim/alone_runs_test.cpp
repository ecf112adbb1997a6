// Exchanges that run alone taken apart and kept across simulations
// (sim/alone_runs.h): the figures are those of one model run to the end, bit
// for bit, and a run is taken again only where its key says it is the same.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "models/results/results.h"
#include "models/scenario/scenario_loader.h"
#include "sim/alone_runs.h"
#include "sim/kept_runs.h"
#include "sim/simulate.h"

namespace exsim {
namespace {

const std::string kSource = EXSIM_SOURCE_DIR;

std::string simulated(const Scenario& scenario, const Policy& policy, sim::KeptRuns* kept) {
  SimulateOptions options;
  options.kept = kept;
  return results_to_json({simulate(scenario, policy, options)});
}

}  // namespace

TEST_CASE("alone runs: which exchanges run alone") {
  Query q;
  q.exchanges.resize(4);
  q.exchanges[1].after = {0};
  q.exchanges[2].after = {0};     // 1 and 2 side by side after 0
  q.exchanges[3].after = {1, 2};  // 3 after both
  CHECK(sim::runs_alone(q) == std::vector<bool>{true, false, false, true});
  q.exchanges[2].after = {1};  // now a chain
  CHECK(sim::runs_alone(q) == std::vector<bool>{true, true, true, true});
}

TEST_CASE("alone runs: taken apart and shared, the figures of one model run to the end") {
  struct Case {
    std::string file;
    std::vector<std::string> overrides;
  };
  // A broadcast then a hash shuffle after it, each alone; a build then its
  // probe; several queries, whose later runs start from the earlier ones'
  // memory marks and CPU; a merge.
  const std::vector<Case> cases = {
      {"/scenarios/production-20-hosts.json",
       {"workload.queries.0.exchanges.0.rows=200000", "workload.queries.0.exchanges.1.rows=4000000"}},
      {"/scenarios/default.json", {}},
      {"/scenarios/merge.json", {}},
      {"/scenarios/seeds/impala-6041.json", {}},
      {"/scenarios/seeds/impala-12430.json", {}},
  };
  for (const Case& c : cases) {
    CAPTURE(c.file);
    const Scenario scenario = load_scenario(kSource + c.file, c.overrides);
    sim::KeptRuns kept;
    for (const Policy& policy : scenario.policies) {
      CAPTURE(policy.name);
      CHECK(simulated(scenario, policy, &kept) == simulated(scenario, policy, nullptr));
    }
    CHECK(kept.alone.runs_kept() > 0);
  }
}

TEST_CASE("alone runs: a broadcast's run is shared by flat buffer sizes, not by another window") {
  // Short enough to be simulated whole: a broadcast and, after it, a shuffle.
  const Scenario scenario =
      load_scenario(kSource + "/scenarios/production-20-hosts.json",
                    {"workload.queries.0.exchanges.0.rows=200000", "workload.queries.0.exchanges.1.rows=4000000"});
  const auto policy = [&](const std::string& name) -> const Policy& {
    for (const Policy& p : scenario.policies) {
      if (p.name == name) return p;
    }
    FAIL("no policy " << name);
    return scenario.policies.front();
  };
  sim::KeptRuns kept;
  simulated(scenario, policy("16K"), &kept);
  CHECK(kept.alone.runs_kept() == 2);  // the broadcast, the shuffle
  simulated(scenario, policy("64K"), &kept);
  CHECK(kept.alone.runs_kept() == 3);  // the broadcast taken again; a shuffle of its own
  simulated(scenario, policy("128K-2-in-flight"), &kept);
  CHECK(kept.alone.runs_kept() == 5);  // two calls in flight: a broadcast of its own
  // Under other costs nothing is the same.
  Scenario dearer = scenario;
  dearer.costs.rpc_latency_us *= 2;
  simulated(dearer, policy("16K"), &kept);
  CHECK(kept.alone.runs_kept() == 7);
  // Nor on another cluster: one host pair 0.1 ms farther apart.
  Scenario farther = scenario;
  farther.cluster.rtt.set_rtt(0, 1, farther.cluster.rtt.rtt(0, 1) + 100000);
  simulated(farther, policy("16K"), &kept);
  CHECK(kept.alone.runs_kept() == 9);
  // And what is taken again gives what a simulation of its own gives.
  CHECK(simulated(scenario, policy("256K"), &kept) == simulated(scenario, policy("256K"), nullptr));
  CHECK(kept.alone.runs_kept() == 10);
  // A query of another name takes the same runs, under its own name.
  Scenario renamed = scenario;
  renamed.queries[0].name = "renamed";
  CHECK(simulated(renamed, policy("16K"), &kept) == simulated(renamed, policy("16K"), nullptr));
  CHECK(kept.alone.runs_kept() == 10);
}

}  // namespace exsim
