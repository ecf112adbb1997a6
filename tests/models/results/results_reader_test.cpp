// Results and costs read back from the JSON exsim writes: every figure
// survives the round trip, and a broken document names the file and pointer.
#include <doctest/doctest.h>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "models/base/error.h"
#include "models/base/json_reader.h"
#include "models/results/results_reader.h"
#include "models/scenario/scenario_loader.h"
#include "sim/simulate.h"
#include "tests/test_util.h"

namespace exsim {
namespace {

RunResult read_back(const std::string& text, std::size_t index = 0) {
  const nlohmann::ordered_json doc = parse_json_text(text, "results.json");
  Diagnostics diagnostics("results.json");
  const nlohmann::ordered_json& element = doc.at(index);
  const RunResult r = read_run_result(JsonNode(&element, fmt::format("/{}", index), &diagnostics));
  diagnostics.throw_if_errors();
  return r;
}

TEST_CASE("a results file reads back to the same results, byte for byte when written again") {
  const Scenario s = load_scenario(std::string(EXSIM_SOURCE_DIR) + "/scenarios/hash.json");
  std::vector<RunResult> results;
  for (const auto& p : s.policies) results.push_back(simulate(s, p));
  // A measured run's figures beside the simulated ones: a host's speed around its run.
  results.front().hosts.front().speed_probe_before_us = 912.5;
  results.front().hosts.front().speed_probe_after_us = 930.25;
  results.front().hosts.front().cores_awake = "held";
  // How a simulated run was obtained: fast-forwarded (along a line), and declined.
  results[1].fast_forward.shortened = {"skewed-join/build", "skewed-join/probe"};
  results[1].fast_forward.rows_simulated = {0.0625, 0.125};
  results[1].fast_forward.along_line = true;
  results[2].fast_forward.declined = "skewed-join/probe runs beside skewed-join/build in its middle";
  const std::string text = results_to_json(results);
  std::vector<RunResult> back;
  for (std::size_t i = 0; i < results.size(); ++i) back.push_back(read_back(text, i));
  CHECK(results_to_json(back) == text);
  CHECK(back.front().policy == results.front().policy);
  CHECK(back.front().config.buffer.kind == results.front().config.buffer.kind);
  CHECK(back.front().hosts.size() == results.front().hosts.size());
  CHECK(back.front().hosts.front().speed_probe_after_us == 930.25);
  CHECK(back.front().hosts.back().speed_probe_before_us == -1);  // not probed: not written, read as none
  CHECK(back.front().hosts.front().cores_awake == "held");
  CHECK(back.front().hosts.back().cores_awake.empty());  // not asked: not written
  CHECK(back.front().rpc_receiver.p50_us > 0);  // a call's receiver time, beside its network time
  CHECK(back.front().rpc_receiver.p50_us == results.front().rpc_receiver.p50_us);
  CHECK_FALSE(back[0].fast_forward.applied());
  CHECK(back[0].fast_forward.declined.empty());
  CHECK(back[1].fast_forward.shortened == results[1].fast_forward.shortened);
  CHECK(back[1].fast_forward.rows_simulated == results[1].fast_forward.rows_simulated);
  CHECK(back[1].fast_forward.along_line);
  CHECK(back[2].fast_forward.declined == results[2].fast_forward.declined);
}

TEST_CASE("a measured run names the hosts whose cores could not be held awake, and why") {
  RunResult run;
  run.hosts.resize(3);
  run.hosts[0].name = "h0";
  run.hosts[0].cores_awake = "held";
  run.hosts[1].name = "h1";
  run.hosts[1].cores_awake = "not held: /dev/cpu_dma_latency: Permission denied (needs root)";
  run.hosts[2].name = "h2";
  run.hosts[2].cores_awake = "free to sleep";  // asked to sleep: nothing to say
  CHECK(cores_not_held(run) == "h1's cores not held awake (/dev/cpu_dma_latency: Permission denied (needs root))");
  run.hosts[1].cores_awake = "held";
  CHECK(cores_not_held(run).empty());
  // As the coordinator writes a refusal, and one read back without a reason.
  CHECK(cores_refused(cores_refused_state("why")));
  CHECK(cores_refused_why(cores_refused_state("why")) == "why");
  CHECK(cores_refused_why("not held") == "no reason given");
  CHECK_FALSE(cores_refused("held"));
  CHECK(cores_refused_why("held").empty());
}

TEST_CASE("a broken result names the file, the pointer and what was expected") {
  std::string text = R"([{"scenario": "s", "policy": "p", "source": "measured", "wall_s": -1, "rpcs": 3,
    "bytes_wire": 1, "bytes_uncompressed": 1, "cpu_s": {"serialize": 0}, "rpc_network_us": {"mean": 1, "p50": 1,
    "p99": 1}, "queries": [], "exchanges": [], "hosts": [], "planner": {"senders": 0, "over_estimate": 0,
    "max_over_bytes": 0}, "fast_forward": {"shortened": ["q/a", "q/b"], "rows_simulated": [0.5]}}])";
  std::string error;
  try {
    read_back(text);
  } catch (const InputError& e) {
    error = e.what();
  }
  CHECK(error.find("results.json:/0/wall_s") != std::string::npos);
  CHECK(error.find("results.json:/0/cpu_s") != std::string::npos);  // its missing stages
  CHECK(error.find("results.json:/0/fast_forward/rows_simulated: expected a share for each of the 2") !=
        std::string::npos);
}

TEST_CASE("a costs profile inside another document reads as the same profile file would") {
  const CostProfile reference = reference_cost_profile();
  const nlohmann::ordered_json doc =
      parse_json_text(cost_profile_json(reference, "recorded", {}, {}), "validation.json");
  Diagnostics diagnostics("validation.json");
  const CostProfile back = read_cost_profile(JsonNode(&doc, "/comparisons/0/costs", &diagnostics));
  diagnostics.throw_if_errors();
  CHECK(back.serialize_bytes_per_s == reference.serialize_bytes_per_s);
  CHECK(back.rpc_cpu_us == reference.rpc_cpu_us);
  CHECK(back.source == "recorded");
}

}  // namespace
}  // namespace exsim
