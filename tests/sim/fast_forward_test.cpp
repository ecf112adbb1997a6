// Fast-forwarding (sim/fast_forward.h) against the whole simulation: every
// shipped scenario, and long variants of them that it shortens, agree within
// the stated bounds; what it declines is the whole simulation's result.
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "models/results/results.h"
#include "models/scenario/scenario_loader.h"
#include "models/scenario/cost_figures.h"
#include "sim/kept_runs.h"
#include "sim/fast_forward.h"
#include "sim/simulate.h"

namespace exsim {
namespace {

const std::string kSource = EXSIM_SOURCE_DIR;

RunResult simulate_exact(const Scenario& scenario, const Policy& policy) {
  SimulateOptions exact;
  exact.exact = true;
  return simulate(scenario, policy, exact);
}

double relative(double x, double whole) { return whole == 0 ? std::abs(x) : std::abs(x - whole) / std::abs(whole); }

// The bounds: times within 0.5%, calls and bytes exact, sender peaks
// within 1%, the same bound.
void check_agrees(const RunResult& fast, const RunResult& whole, const std::string& what) {
  INFO(what);
  CHECK(relative(fast.wall_s, whole.wall_s) <= 0.005);
  REQUIRE(fast.exchanges.size() == whole.exchanges.size());
  for (std::size_t i = 0; i < whole.exchanges.size(); ++i) {
    const ExchangeResult& f = fast.exchanges[i];
    const ExchangeResult& w = whole.exchanges[i];
    INFO(w.query << "/" << w.id);
    CHECK(relative(f.wall_s, w.wall_s) <= 0.005);
    CHECK(f.rpcs == w.rpcs);
    CHECK(f.eos_rpcs == w.eos_rpcs);
    CHECK(f.rows == w.rows);
    CHECK(f.bytes_wire == w.bytes_wire);
    CHECK(f.bytes_uncompressed == w.bytes_uncompressed);
    CHECK(f.sender_time.largest() == w.sender_time.largest());
    CHECK(relative(static_cast<double>(f.sender_instance_peak_bytes), static_cast<double>(w.sender_instance_peak_bytes)) <= 0.01);
  }
  CHECK(fast.rpcs == whole.rpcs);
  CHECK(fast.bytes_wire == whole.bytes_wire);
  for (std::size_t h = 0; h < whole.hosts.size(); ++h) {
    CHECK(relative(static_cast<double>(fast.hosts[h].sender_peak_bytes), static_cast<double>(whole.hosts[h].sender_peak_bytes)) <=
          0.01);
  }
  for (auto stage : {&CpuByStage::produce, &CpuByStage::serialize, &CpuByStage::compress, &CpuByStage::call,
                     &CpuByStage::rpc, &CpuByStage::decompress, &CpuByStage::deserialize, &CpuByStage::consume}) {
    CHECK(relative(fast.cpu_s.*stage, whole.cpu_s.*stage) <= 0.005);
  }
  // Stretched, compression is counted with the calls, not extended: the
  // whole run's to the rounding of its sum.
  if (!fast.fast_forward.along_line) CHECK(relative(fast.cpu_s.compress, whole.cpu_s.compress) <= 1e-9);
}

// How the policies of a scenario were simulated by default.
struct Paths {
  int stretched = 0, along_line = 0, declined = 0;
};

// Simulates every policy (or `only`) both ways. A run simulated whole by either
// path is the same run: compared only when the fast path declined after trying.
Paths compare_policies(const Scenario& scenario, const std::string& name, const std::string& only = "") {
  Paths paths;
  for (const Policy& policy : scenario.policies) {
    if (!only.empty() && policy.name != only) continue;
    const RunResult fast = simulate(scenario, policy);
    if (fast.fast_forward.applied()) {
      ++(fast.fast_forward.along_line ? paths.along_line : paths.stretched);
      check_agrees(fast, simulate_exact(scenario, policy), name + " / " + policy.name);
    } else if (!fast.fast_forward.declined.empty()) {
      ++paths.declined;
      const RunResult whole = simulate_exact(scenario, policy);
      INFO(name << " / " << policy.name << ": " << fast.fast_forward.declined);
      CHECK(results_to_json({fast}) != results_to_json({whole}));  // it says it declined...
      CHECK(fast.wall_s == whole.wall_s);                          // ...and is the whole run
      CHECK(fast.rpcs == whole.rpcs);
    } else {
      CHECK_FALSE(sim::plan_shortening(scenario, policy).any());
    }
  }
  return paths;
}

}  // namespace

TEST_CASE("fast-forward: every shipped scenario agrees with the whole simulation") {
  std::vector<std::string> files;
  for (const std::string dir : {"/scenarios", "/scenarios/seeds", "/scenarios/validation"}) {
    for (const auto& entry : std::filesystem::directory_iterator(kSource + dir)) {
      const std::string path = entry.path().string();
      if (entry.path().extension() != ".json") continue;
      const std::string stem = entry.path().stem().string();
      // Not scenarios: the suite's list, its region, the fits and the published figures.
      if (stem == "suite" || stem == "region" || stem == "published" || stem == "tpcds-plans" ||
          stem.rfind("fitted-", 0) == 0) {
        continue;
      }
      files.push_back(path);
    }
  }
  CHECK(files.size() >= 20);
  int stretched = 0;
  for (const std::string& path : files) stretched += compare_policies(load_scenario(path), path).stretched;
  CHECK(stretched >= 4);  // the production scenario's 16K, 64K and both 128K
}

TEST_CASE("fast-forward: long variants of each partitioning kind agree with the whole simulation") {
  struct Variant {
    std::string file;
    std::vector<std::string> overrides;
    int stretched, along_line = 0, declined = 0;  // policies, at least
    std::string only = "";
  };
  const std::vector<Variant> variants = {
      {"/scenarios/default.json", {"workload.queries.0.exchanges.1.rows=800000000"}, 2},  // a hash join's probe
      // Its build long too, but its receivers' memory grows with its rows: at 16K a
      // first run shortens both, the second only the probe.
      {"/scenarios/default.json",
       {"workload.queries.0.exchanges.0.rows=400000000", "workload.queries.0.exchanges.1.rows=800000000"}, 2},
      {"/scenarios/random.json", {"workload.queries.0.exchanges.0.rows=1600000000"}, 2},
      {"/scenarios/merge.json", {"workload.queries.0.exchanges.0.rows=2000000000"}, 3},
      {"/scenarios/broadcast.json", {"workload.queries.0.exchanges.0.rows=400000000"}, 3},
      // Nine channels in all: the rate over a few thousand calls wanders (kRunTotalCalls).
      {"/scenarios/validation/mt-dop-1.json", {"workload.queries.0.exchanges.0.rows=800000000"}, 1},
      // MT_DOP 0: each sender fed by its own scanner threads.
      {"/scenarios/validation/scan.json", {"workload.queries.0.exchanges.0.rows=600000000"}, 1},
      // Two long shuffles side by side: along a line.
      {"/tests/data/scenarios/side-by-side.json", {}, 0, 1},
      // The same, the probe's receivers' queues growing over the run: simulated whole.
      {"/scenarios/default.json",
       {"workload.queries.0.exchanges.0.rows=1200000000", "workload.queries.0.exchanges.1.rows=1600000000",
        "workload.queries.0.exchanges.1.after=[]"},
       0, 0, 1, "16K"},
  };
  for (const Variant& v : variants) {
    const Scenario scenario = load_scenario(kSource + v.file, v.overrides);
    const Paths paths = compare_policies(scenario, v.file, v.only);
    INFO(v.file);
    CHECK(paths.stretched >= v.stretched);
    CHECK(paths.along_line >= v.along_line);
    CHECK(paths.declined >= v.declined);
  }
}

TEST_CASE("fast-forward: which exchanges are shortened, and to what") {
  const Scenario production = load_scenario(kSource + "/scenarios/production-20-hosts.json");
  const Policy& p16k = production.policies.front();
  REQUIRE(p16k.name == "16K");
  const sim::ShorteningPlan both = sim::plan_shortening(production, p16k);
  const sim::Shortening plan = both.stretch();
  REQUIRE(plan.any());
  CHECK_FALSE(plan.shortened(0, 0));  // the broadcast: 62 calls a channel
  CHECK(plan.shortened(0, 1));        // the fact shuffle: about 2000
  const Exchange& fact = production.queries[0].exchanges[1];
  const double per_channel = sim::calls_per_channel(p16k, fact);
  const double calls = per_channel * fact.senders.instances() * fact.receivers.instances();
  const double fraction = plan.fraction[0][1];
  CHECK(fraction == doctest::Approx(std::max(sim::kRunCalls / per_channel, sim::kRunTotalCalls / calls)));
  CHECK(fraction <= sim::kLargestFraction);
  CHECK(both.line() == plan);  // one long exchange: the line's fraction is its own
  // The fact rows cut to the fraction (an even number, for the line's half run); the broadcast whole.
  const Scenario shortened = sim::shortened_scenario(production, plan);
  CHECK(shortened.queries[0].exchanges[0].rows == production.queries[0].exchanges[0].rows);
  const auto half = std::llround(static_cast<double>(fact.rows) * fraction / 2);
  CHECK(shortened.queries[0].exchanges[1].rows == 2 * half);
  CHECK(sim::shortened_scenario(production, plan, true).queries[0].exchanges[1].rows == half);

  // Many exchanges none of which dominates (IMPALA-15512): the shortened runs
  // would simulate the rest twice, and are not worth it.
  const Scenario seeds = load_scenario(kSource + "/scenarios/seeds/impala-15512.json");
  for (const Policy& policy : seeds.policies) CHECK_FALSE(sim::plan_shortening(seeds, policy).any());
  // Short exchanges are simulated whole.
  const Scenario small = load_scenario(kSource + "/scenarios/default.json");
  for (const Policy& policy : small.policies) CHECK_FALSE(sim::plan_shortening(small, policy).any());
}

TEST_CASE("fast-forward: each long exchange that runs alone takes its own fraction; along a line, all the largest") {
  // A join's build and probe, one after the other, both long: stretched, each
  // is shortened to what it needs, the shorter build to a larger fraction.
  const Scenario joined = load_scenario(kSource + "/scenarios/default.json",
                                        {"workload.queries.0.exchanges.0.rows=1600000000",
                                         "workload.queries.0.exchanges.1.rows=6400000000"});
  const Policy& policy = joined.policies.front();
  const auto needs = [&](const Exchange& x) {
    const double per_channel = sim::calls_per_channel(policy, x);
    const double calls = per_channel * x.senders.instances() * x.receivers.instances();
    return std::max(sim::kRunCalls / per_channel, sim::kRunTotalCalls / calls);
  };
  sim::ShorteningPlan plan = sim::plan_shortening(joined, policy);
  const sim::Shortening stretch = plan.stretch();
  REQUIRE(stretch.any());
  const double build = stretch.fraction[0][0], probe = stretch.fraction[0][1];
  CHECK(build == doctest::Approx(needs(joined.queries[0].exchanges[0])));
  CHECK(probe == doctest::Approx(needs(joined.queries[0].exchanges[1])));
  CHECK(probe < build);
  CHECK(stretch.fraction[1][0] == 1);  // the next query's short exchanges whole
  const sim::Shortening line = plan.line();
  REQUIRE(line.any());
  CHECK(line.fraction[0][0] == build);
  CHECK(line.fraction[0][1] == build);  // the largest fraction for all
  // A run that found the probe's middle too short lengthens it; beyond half
  // its rows, it is simulated whole.
  plan.lengthen(0, 1);
  CHECK(plan.stretch().fraction[0][1] == doctest::Approx(sim::kLengthening * probe));
  plan.lengthen(0, 0);
  plan.lengthen(0, 0);
  CHECK_FALSE(plan.stretch().shortened(0, 0));
  plan.keep_whole(0, 1);
  CHECK_FALSE(plan.any());

  // The same two side by side (neither waits for the other): neither runs
  // alone, so only the line shortens them.
  const Scenario beside = load_scenario(kSource + "/scenarios/default.json",
                                        {"workload.queries.0.exchanges.0.rows=1600000000",
                                         "workload.queries.0.exchanges.1.rows=1600000000",
                                         "workload.queries.0.exchanges.1.after=[]"});
  const sim::ShorteningPlan side = sim::plan_shortening(beside, beside.policies.front());
  CHECK_FALSE(side.stretch().any());
  CHECK(side.line().any());
}

TEST_CASE("fast-forward: the counts planned without time are the simulation's, and deterministic") {
  const Scenario scenario = load_scenario(kSource + "/scenarios/hash.json");
  for (const Policy& policy : scenario.policies) {
    const RunResult whole = simulate_exact(scenario, policy);
    const std::vector<sim::CountedRun> counted = sim::count_exchange_runs(scenario, policy);
    REQUIRE(counted.size() == whole.exchanges.size());
    for (std::size_t i = 0; i < counted.size(); ++i) {
      INFO(policy.name << " " << whole.exchanges[i].id);
      CHECK(counted[i].counts.rpcs == whole.exchanges[i].rpcs);
      CHECK(counted[i].counts.eos_rpcs == whole.exchanges[i].eos_rpcs);
      CHECK(counted[i].counts.rows_delivered == whole.exchanges[i].rows);
      CHECK(counted[i].counts.bytes_wire == whole.exchanges[i].bytes_wire);
      CHECK(counted[i].counts.bytes_uncompressed == whole.exchanges[i].bytes_uncompressed);
      CHECK(counted[i].rooms > 0);
    }
  }
  const Scenario merge = load_scenario(kSource + "/scenarios/merge.json", {"workload.queries.0.exchanges.0.rows=2000000000"});
  const RunResult once = simulate(merge, merge.policies.front());
  REQUIRE(once.fast_forward.applied());
  CHECK(once.fast_forward.rows_simulated.size() == 1);  // stretched
  CHECK(results_to_json({once}) == results_to_json({simulate(merge, merge.policies.front())}));
}

}  // namespace exsim

namespace exsim {

TEST_CASE("fast-forward: counts kept across simulations give the same results, whatever costs move") {
  // A long probe, shortened: its count of every batch is what the cache keeps.
  const Scenario scenario =
      load_scenario(kSource + "/scenarios/default.json", {"workload.queries.0.exchanges.1.rows=800000000"});
  const Policy& policy = scenario.policies.front();
  sim::KeptRuns kept;
  const sim::CountCache& cache = kept.counts;
  SimulateOptions cached;
  cached.kept = &kept;
  const RunResult first = simulate(scenario, policy, cached);
  REQUIRE(first.fast_forward.applied());
  CHECK(cache.keys() == 1);
  CHECK(results_to_json({first}) == results_to_json({simulate(scenario, policy)}));
  // Costs a count does not read reuse it; the two it reads (each call's bytes,
  // LZ4's rate) count again. Either way the results are those of no cache.
  struct Move {
    const char* key;
    double factor;
    std::size_t keys_after;
  };
  for (const Move& m : {Move{"rpc_cpu_us", 2.0, 1}, Move{"lz4_decompress_bytes_per_s", 0.5, 1},
                        Move{"wire_overhead_bytes", 3.0, 2}, Move{"lz4_compress_bytes_per_s", 0.5, 3}}) {
    CAPTURE(m.key);
    Scenario moved = scenario;
    const CostFigure* figure = find_cost_figure(m.key);
    REQUIRE(figure != nullptr);
    figure->set(moved.costs, figure->get(moved.costs) * m.factor);
    const RunResult with = simulate(moved, policy, cached);
    CHECK(cache.keys() == m.keys_after);
    CHECK(results_to_json({with}) == results_to_json({simulate(moved, policy)}));
    CHECK(with.wall_s != first.wall_s);  // the cost did move the run
  }
}

TEST_CASE("fast-forward: the calls in flight and the receiver's queue leave a count as it was") {
  const Scenario scenario =
      load_scenario(kSource + "/scenarios/default.json", {"workload.queries.0.exchanges.1.rows=800000000"});
  const auto variant = [](Policy policy) {
    policy.name = "other";
    policy.in_flight += 3;
    policy.receiver_buffer /= 4;
    return policy;
  };
  // Flat sizes and a budget (whose share per channel the count reads).
  for (const Policy& base : scenario.policies) {
    CAPTURE(base.name);
    const std::vector<sim::CountedRun> a = sim::count_exchange_runs(scenario, base);
    const std::vector<sim::CountedRun> b = sim::count_exchange_runs(scenario, variant(base));
    REQUIRE(a.size() == b.size());
    for (std::size_t i = 0; i < a.size(); ++i) {
      CHECK(a[i].counts.rpcs == b[i].counts.rpcs);
      CHECK(a[i].counts.bytes_wire == b[i].counts.bytes_wire);
      CHECK(a[i].counts.bytes_uncompressed == b[i].counts.bytes_uncompressed);
      CHECK(a[i].rooms == b[i].rooms);
      CHECK(a[i].compress_s == b[i].compress_s);
    }
  }
  // So the cache keeps one count for both, and each simulation's results are
  // those it gives with no cache; a buffer size, which the count reads, keeps a second.
  const Policy& base = scenario.policies.front();
  sim::KeptRuns kept;
  SimulateOptions cached;
  cached.kept = &kept;
  const RunResult first = simulate(scenario, base, cached);
  REQUIRE(first.fast_forward.applied());
  const RunResult second = simulate(scenario, variant(base), cached);
  CHECK(kept.counts.keys() == 1);
  CHECK(results_to_json({second}) == results_to_json({simulate(scenario, variant(base))}));
  CHECK(second.wall_s != first.wall_s);  // the two policies do run differently
  Policy larger = base;
  larger.buffer.flat *= 2;
  simulate(scenario, larger, cached);
  CHECK(kept.counts.keys() == 2);
}

}  // namespace exsim
