// Exchanges that run alone taken apart and kept across simulations
// (sim/alone_runs.h): the figures are those of one model run to the end, bit
// for bit, and a run is taken again only where its key says it is the same.
#include <doctest/doctest.h>

#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "models/results/results.h"
#include "models/scenario/cost_figures.h"
#include "models/scenario/scenario_loader.h"
#include "sim/alone_runs.h"
#include "sim/kept_runs.h"
#include "sim/run_inputs.h"
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

TEST_CASE("alone runs: a whole-batch sender reads neither the buffer sizing nor the routing's costs") {
  Policy small, large = small;
  small.name = "16K";
  large.name = "256K";
  large.buffer.flat = 256 * kKiB;
  large.capacity = CapacityRule::kBytes;
  CostProfile costs, routed = costs;
  routed.append_bytes_per_s = 1e9;
  routed.cache_miss_row_ns = 3;
  Exchange x;
  x.senders = {{0, 1}, 2};
  x.receivers = {{0, 1}, 2};
  for (const PartitionKind kind : {PartitionKind::kBroadcast, PartitionKind::kRandom, PartitionKind::kMerge}) {
    x.kind = kind;
    CHECK(sim::policy_seen_by(small, x) == sim::policy_seen_by(large, x));  // names and sizes apart, the same
    CHECK(sim::costs_seen_by(costs, x) == sim::costs_seen_by(routed, x));
  }
  x.kind = PartitionKind::kHash;
  CHECK_FALSE(sim::policy_seen_by(small, x) == sim::policy_seen_by(large, x));
  CHECK_FALSE(sim::costs_seen_by(costs, x) == sim::costs_seen_by(routed, x));
  x.receivers = {{1}, 1};  // one channel: the whole-batch path
  CHECK(sim::policy_seen_by(small, x) == sim::policy_seen_by(large, x));
  CHECK(sim::costs_seen_by(costs, x) == sim::costs_seen_by(routed, x));
  // What else a whole-batch sender reads still tells them apart.
  Policy two = small;
  two.in_flight = 2;
  CHECK_FALSE(sim::policy_seen_by(small, x) == sim::policy_seen_by(two, x));
  CostProfile wire = costs;
  wire.transfer_miss_byte_ns = 0.5;
  CHECK_FALSE(sim::costs_seen_by(costs, x) == sim::costs_seen_by(wire, x));
}

TEST_CASE("run inputs: where a call's CPU is counted moves no event") {
  CostProfile costs, caller = costs;
  caller.rpc_caller_cpu_us = 11;
  caller.source = "elsewhere";
  CHECK(sim::same_timeline(costs, caller));
  CostProfile dearer = costs;
  dearer.rpc_cpu_us += 1;
  CHECK_FALSE(sim::same_timeline(costs, dearer));
  // Nor does a call's CPU among many, or taken busy, at a call's alone or
  // above (the dear end of the reference's range): the model reads it as none.
  // Below, it moves them; and a call taken busy is one among many when calls
  // share.
  costs.rpc_cpu_us = 11;
  CostProfile shared = costs;
  for (const double at : {11.0, 30.0}) {
    shared.rpc_cpu_busy_us = at;
    CHECK(sim::same_timeline(costs, shared));
    shared.rpc_cpu_queued_us = at;
    CHECK(sim::same_timeline(costs, shared));
  }
  shared.rpc_cpu_queued_us = 10.9;
  CHECK_FALSE(sim::same_timeline(costs, shared));
  shared.rpc_cpu_queued_us = -1;
  shared.rpc_cpu_busy_us = 10.9;
  CHECK_FALSE(sim::same_timeline(costs, shared));
  shared.rpc_cpu_queued_us = 11;
  CostProfile busy = shared;
  busy.rpc_cpu_queued_us = -1;
  CHECK_FALSE(sim::same_timeline(shared, busy));
  // The claim itself, on a broadcast and a shuffle after it: the same times,
  // calls and bounds whatever share of a call's CPU the query's thread takes;
  // only that share moves.
  Scenario scenario =
      load_scenario(kSource + "/scenarios/production-20-hosts.json",
                    {"workload.queries.0.exchanges.0.rows=200000", "workload.queries.0.exchanges.1.rows=4000000"});
  const Policy policy = scenario.policies.front();
  scenario.costs.rpc_caller_cpu_us = 0;
  const RunResult none = simulate(scenario, policy, SimulateOptions{});
  scenario.costs.rpc_caller_cpu_us = 11;
  const RunResult all = simulate(scenario, policy, SimulateOptions{});
  CHECK(all.wall_s == none.wall_s);
  CHECK(all.rpcs == none.rpcs);
  REQUIRE(all.exchanges.size() == none.exchanges.size());
  for (std::size_t i = 0; i < all.exchanges.size(); ++i) {
    CHECK(all.exchanges[i].wall_s == none.exchanges[i].wall_s);
    CHECK(all.exchanges[i].sender_blocked_s == none.exchanges[i].sender_blocked_s);
    CHECK(all.exchanges[i].sender_time.seconds == none.exchanges[i].sender_time.seconds);
  }
  CHECK(none.cpu_s.call == 0);
  CHECK(all.cpu_s.call > 0);
  CHECK(all.cpu_s.call + all.cpu_s.rpc == doctest::Approx(none.cpu_s.rpc).epsilon(1e-9));
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
  // Each cost moved alone: what is taken again (the broadcast, under a cost of
  // the hash routing's) gives the figures of a simulation of its own, and what
  // the broadcast reads is simulated again.
  const std::set<std::string_view> routing = {"partition_rows_per_s", "append_bytes_per_s", "core_cache_bytes",
                                              "core_miss_byte_ns",    "cache_miss_row_ns",  "cache_miss_byte_ns",
                                              "prefetch_streams",     "prefetched_miss_share"};
  for (const CostFigure& figure : cost_figures()) {
    CAPTURE(figure.key);
    Scenario moved = scenario;
    const double value = figure.get(moved.costs);
    // (A figure at none, a call's CPU among many, takes half rpc_cpu_us.)
    figure.set(moved.costs, value > 0 ? value * 0.5 : value < 0 ? 0.5 * moved.costs.rpc_cpu_us : 1.0);
    const std::size_t before = kept.alone.runs_kept();
    CHECK(simulated(moved, policy("16K"), &kept) == simulated(moved, policy("16K"), nullptr));
    // The shuffle is simulated again under every cost; the broadcast only
    // under one it reads.
    CHECK(kept.alone.runs_kept() - before == (routing.contains(figure.key) ? 1u : 2u));
  }
  // A query of another name takes the same runs, under its own name.
  Scenario renamed = scenario;
  renamed.queries[0].name = "renamed";
  const std::size_t kept_before = kept.alone.runs_kept();
  CHECK(simulated(renamed, policy("16K"), &kept) == simulated(renamed, policy("16K"), nullptr));
  CHECK(kept.alone.runs_kept() == kept_before);
}

}  // namespace exsim
