// The workflows behind the commands, on their own: the validation pipeline's
// choices (which run of a policy counts, what gets no verdict), an earlier
// validation judged again, every bad suite file reported at once, and a sweep
// run on one thread and on two giving the same lines, written whole.
#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <exception>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "workflows/cost_ranges.h"
#include "workflows/parallel.h"
#include "workflows/sweep_runner.h"
#include "workflows/validation.h"
#include "models/base/error.h"
#include "models/scenario/scenario_loader.h"
#include "sim/simulate.h"
#include "transport/testbed/call_probe.h"
#include "transport/testbed/probe_limits.h"
#include "transport/testbed/speed_probe.h"

namespace exsim {
namespace {

const std::string kSource = EXSIM_SOURCE_DIR;

// A small scenario: two policies, one hash exchange among 3 hosts.
const char* kScenario = R"({"name": "small", "seed": 7, "cluster": {"hosts": 3, "rtt_ms": {"same_group": 0.2}},
  "policies": {"16K": {"buffer": {"flat": "16K"}}, "64K": {"buffer": {"flat": "64K"}}},
  "workload": {"queries": [{"name": "q", "exchanges": [{"id": "x", "kind": "hash", "rows": 200000,
    "row": {"fixed_bytes": 24, "varlen_bytes": 0}, "lz4_ratio": 0.5}]}]}})";

std::string temp_file(const std::string& name, const std::string& text) {
  const auto path = std::filesystem::temp_directory_path() / name;
  std::ofstream(path) << text;
  return path.string();
}

std::string read_all(const std::string& path) {
  std::ifstream in(path);
  std::stringstream out;
  out << in.rdbuf();
  return out.str();
}

std::multiset<std::string> lines_of(const std::string& text) {
  std::multiset<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.insert(line);
  return lines;
}

// A measured run of `policy`: the simulation's own result with its wall-clock scaled.
RunResult measured_at(const Scenario& scenario, std::size_t policy, double wall_scale) {
  RunResult run = simulate(scenario, scenario.policies.at(policy));
  run.source = "measured";
  run.wall_s *= wall_scale;
  return run;
}

// `scenario`'s measured policies (`m`: per policy its steady runs, those set
// aside, why unjudged) judged at its own costs, or at `measured`'s rounds'.
workflows::Judged judge_measured(const std::string& file, const Scenario& scenario, workflows::MeasuredScenario m,
                                 workflows::MeasuredSuite measured = {}) {
  measured.scenarios.push_back(std::move(m));
  return workflows::compare_measured({{file, kScenario, scenario}}, std::move(measured), scenario.costs, std::nullopt);
}

TEST_CASE("a policy's run of median wall-clock error counts; without a steady run, those set aside show, unjudged") {
  const std::string file = temp_file("exsim_workflows_small.json", kScenario);
  const Scenario scenario = parse_scenario(kScenario, file);
  workflows::MeasuredScenario m;
  // 16K: three steady runs, 20% slow, 2% slow and 30% fast: the 2% one counts.
  m.runs.push_back({{0, measured_at(scenario, 0, 1.2), {}}, {1, measured_at(scenario, 0, 1.02), {}},
                    {2, measured_at(scenario, 0, 0.7), {}}});
  m.set_aside.push_back({});
  // 64K: no steady run, one set aside.
  m.runs.push_back({});
  m.set_aside.push_back({{0, measured_at(scenario, 1, 1.5), {}}});
  m.unjudged = {"", "the machine was busy"};
  const workflows::Judged judged = judge_measured(file, scenario, std::move(m));
  REQUIRE(judged.comparisons.size() == 2);
  CHECK(judged.comparisons[0].steady);
  // (predicted - measured) / measured of the run kept: the model predicts the unscaled wall-clock.
  CHECK(judged.comparisons[0].wall_error == doctest::Approx(-0.02 / 1.02).epsilon(1e-6));
  CHECK_FALSE(judged.comparisons[1].steady);
  CHECK(judged.comparisons[1].unsteady_why == "the machine was busy");
  std::filesystem::remove(file);
}

TEST_CASE("of two steady runs the one nearer the prediction counts: a row is beyond a threshold only when both are") {
  const std::string file = temp_file("exsim_workflows_two.json", kScenario);
  const Scenario scenario = parse_scenario(kScenario, file);
  auto judge_two = [&](double a, double b) {
    workflows::MeasuredScenario m;
    m.runs.push_back({{0, measured_at(scenario, 0, a), {}}, {1, measured_at(scenario, 0, b), {}}});
    m.set_aside.push_back({});
    m.runs.push_back({{0, measured_at(scenario, 1, 1.0), {}}});
    m.set_aside.push_back({});
    m.unjudged = {"", ""};
    const workflows::Judged judged = judge_measured(file, scenario, std::move(m));
    REQUIRE(judged.comparisons.size() == 2);
    CHECK(judged.comparisons[0].steady);
    CHECK(judged.comparisons[0].run_wall_errors.size() == 2);
    return judged.comparisons[0].wall_error;
  };
  CHECK(judge_two(1.2, 0.95) == doctest::Approx(0.05 / 0.95).epsilon(1e-6));  // one slow, one 5% fast
  CHECK(judge_two(0.95, 1.2) == doctest::Approx(0.05 / 0.95).epsilon(1e-6));  // in either order
  CHECK(judge_two(0.8, 0.7) == doctest::Approx(0.2 / 0.8).epsilon(1e-6));     // both fast: the nearer
  CHECK(judge_two(1.3, 1.25) == doctest::Approx(-0.25 / 1.25).epsilon(1e-6));  // both slow: the nearer
  std::filesystem::remove(file);
}

TEST_CASE("a run on a machine slower than at its calibration is judged with the costs moved to its speed") {
  const std::string file = temp_file("exsim_workflows_slow.json", kScenario);
  const Scenario scenario = parse_scenario(kScenario, file);
  // The real exchange on a machine 20% slower in compute, calls 30% dearer:
  // the model's own run with its costs moved so.
  const MachineSlowdown slowdown{1.2, 1.3};
  Scenario slow = scenario;
  slow.costs = at_slowdown(scenario.costs, slowdown);
  RunResult run = simulate(slow, slow.policies.at(0));
  run.source = "measured";
  workflows::MeasuredSuite measured;
  measured.round_costs = {scenario.costs};
  measured.round_probes = {{1000, 10}};  // the calibration's probes
  workflows::MeasuredScenario m;
  m.runs.push_back({{0, run, {1200, 13}}});  // the run's: 1.2 and 1.3 times theirs
  m.set_aside.push_back({});
  m.runs.push_back({});
  m.set_aside.push_back({});
  m.unjudged = {"", ""};
  const workflows::Judged judged = judge_measured(file, scenario, m, measured);
  REQUIRE(judged.comparisons.size() == 1);
  const validate::Comparison& c = judged.comparisons[0];
  CHECK(c.slowdown.compute == doctest::Approx(1.2));
  CHECK(c.slowdown.calls == doctest::Approx(1.3));
  CHECK(c.costs.rpc_cpu_us == doctest::Approx(1.3 * scenario.costs.rpc_cpu_us));
  CHECK(c.wall_error == doctest::Approx(0).epsilon(1e-9));
  // Held to the calibration's speed instead, the same run reads as a model error.
  measured.round_probes = {{1200, 13}};
  const double unmoved = judge_measured(file, scenario, m, measured).comparisons.at(0).wall_error;
  CHECK(unmoved < -0.05);
  std::filesystem::remove(file);
}

TEST_CASE("a run's probes say its machine's speed unless it changed during the run or strayed too far") {
  const auto why = [](double before, double after) {
    return transport::unscalable(before, after, 1000, transport::speed_deviation(before, after, 1000),
                                 transport::kSpeedProbeLimits, "the machine's speed");
  };
  CHECK(why(1000, 1050).empty());  // within the calibration's own variation
  CHECK(why(1200, 1230).empty());  // 21% slower throughout: its costs are moved so
  CHECK(why(700, 690).empty());    // 30% faster throughout
  CHECK(why(1000, 1200).empty());  // changed by 20% over the run: moved to their mean
  CHECK(why(1000, 1300).find("changed by 30% over the run") != std::string::npos);
  CHECK(why(1500, 1520).find("ran 51% slower than when its costs were measured") != std::string::npos);
  CHECK(why(600, 610).find("40% faster") != std::string::npos);
  // Calls count only when dearer: a cheap probe is one the scheduler did not delay.
  const auto calls = [](double before, double after) {
    return transport::unscalable(before, after, 5.5, transport::call_slowdown(before, after, 5.5),
                                 transport::kCallProbeLimits, "calls");
  };
  CHECK(calls(4.4, 6.0).empty());
  CHECK(calls(5.5, 7.0).find("changed by 27% over the run") != std::string::npos);  // dearer during it
  CHECK(calls(7.9, 8.0).empty());  // 45% dearer throughout: moved so
  CHECK(calls(8.9, 9.0).find("ran 63% slower") != std::string::npos);
  CHECK(calls(8.9, 9.0).find("more than the 55% they are moved by") != std::string::npos);
}

TEST_CASE("the recorded suite judged again passes with the model, and fails with a deliberate error in it") {
  const validate::Suite suite = validate::load_suite({kSource + "/scenarios/validation"});
  const validate::Measurements recorded =
      validate::load_measurements(kSource + "/tests/data/validate/suite-measured.json");
  const auto comparisons = workflows::compare_again(recorded, suite, std::nullopt);
  CHECK(comparisons.size() == recorded.rows.size());
  CHECK(validate::judge(comparisons, suite.thresholds).passed());
  const auto wrong = workflows::compare_again(recorded, suite, validate::parse_model_error("no-latency"));
  CHECK_FALSE(validate::judge(wrong, suite.thresholds).passed());
}

// Measured by validate --hosts on three network namespaces (docs/validation.md,
// "On a real cluster"): each row holds the measured cluster its scenario ran on.
TEST_CASE("a real cluster's measurements judged again on the cluster they ran on, not their scenarios' own") {
  const validate::Suite suite = validate::load_suite({kSource + "/scenarios/validation"});
  validate::Measurements recorded = validate::load_measurements(kSource + "/tests/data/validate/netns-measured.json");
  REQUIRE(recorded.rows.size() == 4);
  CHECK(recorded.rows[0].cluster.find("\"rtt_matrix_ms\"") != std::string::npos);
  const auto comparisons = workflows::compare_again(recorded, suite, std::nullopt);
  CHECK(validate::judge(comparisons, suite.thresholds).passed());
  CHECK(comparisons[0].cluster == recorded.rows[0].cluster);  // kept for the output written again
  // A deliberate error in the model still fails on the cluster's measurements.
  CHECK_FALSE(validate::judge(workflows::compare_again(recorded, suite, validate::parse_model_error("lz4-double-cost")),
                              suite.thresholds)
                  .passed());
  // Simulated on the scenarios' own clusters (hosts 0.2 and 0.6 ms apart), the same runs are far off.
  for (auto& row : recorded.rows) row.cluster.clear();
  CHECK_FALSE(validate::judge(workflows::compare_again(recorded, suite, std::nullopt), suite.thresholds).passed());
}

TEST_CASE("every bad scenario of a suite is reported at once, each by its file") {
  validate::Suite suite;
  suite.scenarios = {kSource + "/tests/data/bad/zero-rows.json", kSource + "/tests/data/bad/unknown-kind.json"};
  try {
    workflows::load_suite_scenarios(suite);
    FAIL("bad scenarios loaded");
  } catch (const InputError& e) {
    const std::string all = e.what();
    CHECK(all.find("zero-rows.json") != std::string::npos);
    CHECK(all.find("unknown-kind.json") != std::string::npos);
  }
}

TEST_CASE("a sweep on two threads writes the same lines as on one, whole, and only then its file") {
  const std::string file = temp_file("exsim_workflows_sweep.json", kScenario);
  const std::string text = read_all(file);
  const SweepPlan plan({{"mt_dop", {"1", "2", "3"}}});
  std::vector<std::string> labels;
  auto run = [&](int jobs, const std::string& out) {
    workflows::SweepRunner runner(file, text, {}, plan, Shard{});
    CHECK(runner.points() == 3);
    return runner.run(jobs, out, [&](const std::string& label) { labels.push_back(label); });
  };
  const std::string one = (std::filesystem::temp_directory_path() / "exsim_sweep_one.jsonl").string();
  const std::string two = (std::filesystem::temp_directory_path() / "exsim_sweep_two.jsonl").string();
  const workflows::SweepOutcome a = run(1, one);
  const workflows::SweepOutcome b = run(2, two);
  CHECK(a.failure.empty());
  CHECK(b.failure.empty());
  CHECK(a.completed == 3);
  CHECK(a.where == one);
  CHECK_FALSE(std::filesystem::exists(one + ".partial"));
  CHECK(labels.size() == 6);
  const auto lines = lines_of(read_all(one));
  CHECK(lines.size() == 6);  // 3 points x 2 policies
  CHECK(lines == lines_of(read_all(two)));
  for (const auto& line : lines) CHECK(line.find("\"sweep\"") != std::string::npos);
  std::filesystem::remove(one);
  std::filesystem::remove(two);
  std::filesystem::remove(file);
}

TEST_CASE("a sweep with a bad value fails before it runs, naming the point") {
  const std::string file = temp_file("exsim_workflows_bad_sweep.json", kScenario);
  const SweepPlan plan({{"mt_dop", {"1", "-4"}}});
  try {
    workflows::SweepRunner runner(file, read_all(file), {}, plan, Shard{});
    FAIL("a bad point loaded");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()).find("sweep point 1 (mt_dop=-4)") != std::string::npos);
  }
  CHECK_THROWS_AS(workflows::SweepRunner(file, read_all(file), {"mt_dop=2"}, plan, Shard{}), UsageError);
  std::filesystem::remove(file);
}

TEST_CASE("a sweep keeps only the policies asked for, and refuses one the file lacks") {
  const std::string file = temp_file("exsim_workflows_policies.json", kScenario);
  const Scenario kept = parse_scenario(workflows::scenario_text_with_policies(file, {"64K"}), file);
  REQUIRE(kept.policies.size() == 1);
  CHECK(kept.policies[0].name == "64K");
  CHECK_THROWS_AS(workflows::scenario_text_with_policies(file, {"32K"}), UsageError);
  CHECK_THROWS_AS(workflows::scenario_text_with_policies(file, {"64K", "64K"}), UsageError);
  std::filesystem::remove(file);
}

TEST_CASE("work on threads: every index once, and no more taken after a failure or a stop") {
  std::vector<std::atomic<int>> visits(1000);
  CHECK_FALSE(workflows::for_each_parallel(visits.size(), 3, [&](std::size_t i) { ++visits[i]; }));
  CHECK(std::all_of(visits.begin(), visits.end(), [](const std::atomic<int>& v) { return v.load() == 1; }));
  std::atomic<int> done{0};
  // One thread, so that what "no more" means is exact (more threads finish the calls under way).
  const std::exception_ptr failure = workflows::for_each_parallel(1000, 1, [&](std::size_t i) {
    if (i == 10) throw InputError({"index 10"});
    ++done;
  });
  REQUIRE(failure);
  CHECK_THROWS_AS(std::rethrow_exception(failure), InputError);  // its own type, for its exit status
  CHECK(done.load() == 10);
  std::atomic<int> started{0};
  CHECK_FALSE(
      workflows::for_each_parallel(1000, 1, [&](std::size_t) { ++started; }, [&] { return started.load() < 5; }));
  CHECK(started.load() == 5);
}

TEST_CASE("a cost's end at its own value takes the policy's result; the other ends are simulated") {
  const std::string file = temp_file("exsim_workflows_sensitivity.json", kScenario);
  Scenario scenario = parse_scenario(kScenario, file);
  // rpc_cpu_us may only grow (its median is its least), the LZ4 rate either way.
  const double rpc = scenario.costs.rpc_cpu_us, lz4 = scenario.costs.lz4_compress_bytes_per_s;
  scenario.costs.spread = {{"rpc_cpu_us", {rpc, rpc, 2 * rpc}}, {"lz4_compress_bytes_per_s", {lz4, lz4 / 2, lz4 * 2}}};
  const std::vector<Policy> policies = {scenario.policies.front()};
  std::vector<RunResult> results = {simulate(scenario, policies.front())};
  // A wall-clock no simulation gives: where it shows, the result was taken.
  const double given = results.front().wall_s + 1000;
  results.front().wall_s = given;
  workflows::CostRangeOptions options;
  options.jobs = 2;
  workflows::simulate_cost_sensitivity(scenario, policies, results, options);
  std::map<std::string, CostSwing> swings;
  for (const CostSwing& swing : results.front().sensitivity) swings[swing.cost] = swing;
  REQUIRE(swings.size() == 2);
  CHECK(swings["rpc_cpu_us"].wall_cheap_s == given);
  CHECK(swings["rpc_cpu_us"].wall_dear_s < given);  // simulated
  Scenario dear = scenario;
  dear.costs.rpc_cpu_us = 2 * rpc;
  CHECK(swings["rpc_cpu_us"].wall_dear_s == simulate(dear, policies.front()).wall_s);
  CHECK(swings["lz4_compress_bytes_per_s"].wall_cheap_s < given);
  CHECK(swings["lz4_compress_bytes_per_s"].wall_dear_s < given);
}

}  // namespace
}  // namespace exsim
