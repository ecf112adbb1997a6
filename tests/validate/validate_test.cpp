// validate/: suite thresholds as the issue defines them (defaults, overrides,
// bad files rejected with the file and JSON pointer), relative errors, the
// verdict against each threshold (and none when the machine was too noisy),
// the JSON of a comparison and its measurements read back, and the deliberate
// model errors that show the gate failing.
#include <doctest/doctest.h>

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "models/base/error.h"
#include "models/scenario/scenario_loader.h"
#include "tests/test_util.h"
#include "validate/comparison.h"
#include "validate/measurements.h"
#include "validate/model_errors.h"
#include "validate/suite.h"

namespace exsim::validate {
namespace {

std::string error_of(const std::string& text) {
  try {
    parse_thresholds(text, "suite.json");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

RunResult result(double wall, std::int64_t rpcs, double bytes, Bytes peak, std::string source) {
  RunResult r;
  r.scenario = std::string("s");
  r.policy = std::string("p");
  r.source = std::move(source);
  r.wall_s = wall;
  r.rpcs = rpcs;
  r.bytes_wire = bytes;
  r.hosts.push_back({"h0", peak / 2, 0, 0, 0, -1});
  r.hosts.push_back({"h1", peak, 0, 0, 0, -1});
  return r;
}

TEST_CASE("thresholds: the issue's defaults, each key optional") {
  const Thresholds d = parse_thresholds("{}", "suite.json");
  CHECK(d.wall_median_error == 0.10);
  CHECK(d.wall_max_error == 0.25);
  CHECK(d.rpcs_error == 0.01);
  CHECK(d.bytes_error == 0.02);
  CHECK(d.sender_peak_error == 0.15);
  const Thresholds t = parse_thresholds(R"({"wall_max_error": 0.2, "rpcs_error": 0})", "suite.json");
  CHECK(t.wall_max_error == 0.2);
  CHECK(t.rpcs_error == 0);
  CHECK(t.wall_median_error == 0.10);
  CHECK(t.unjudged_max == 0);  // by default every row is judged
  CHECK(parse_thresholds(R"({"unjudged_max": 2})", "suite.json").unjudged_max == 2);
}

TEST_CASE("thresholds: bad suite files name the file, the key and what was expected") {
  CHECK(error_of(R"({"wall_max": 0.2})").find("suite.json:/wall_max") != std::string::npos);
  CHECK(error_of(R"({"wall_max": 0.2})").find("wall_max_error") != std::string::npos);  // did you mean
  CHECK(error_of(R"({"rpcs_error": -0.1})").find("/rpcs_error") != std::string::npos);
  CHECK(error_of(R"({"rpcs_error": "1%"})").find("/rpcs_error") != std::string::npos);
  CHECK(error_of(R"({"bytes_error": 0.02,})").find("suite.json:1:") != std::string::npos);
  CHECK(error_of("[]").find("suite.json") != std::string::npos);
  CHECK(error_of(R"({"unjudged_max": -1})").find("/unjudged_max") != std::string::npos);
  CHECK(error_of(R"({"unjudged_max": 1.5})").find("/unjudged_max") != std::string::npos);
}

TEST_CASE("a suite directory: its scenarios sorted, suite.json not among them, its thresholds applied") {
  const auto dir = std::filesystem::temp_directory_path() / "exsim-suite-test";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "b.json") << "{}";
  std::ofstream(dir / "a.json") << "{}";
  std::ofstream(dir / "notes.txt") << "not a scenario";
  std::ofstream(dir / "suite.json") << R"({"wall_median_error": 0.05})";
  const Suite suite = load_suite({dir.string()});
  REQUIRE(suite.scenarios.size() == 2);
  CHECK(std::filesystem::path(suite.scenarios[0]).filename() == "a.json");
  CHECK(std::filesystem::path(suite.scenarios[1]).filename() == "b.json");
  CHECK(suite.thresholds.wall_median_error == 0.05);
  CHECK(suite.thresholds_source == (dir / "suite.json").string());
  CHECK_THROWS_AS(load_suite({(dir / "missing.json").string()}), UsageError);
  CHECK_THROWS_AS(load_suite({}), UsageError);
  std::filesystem::remove_all(dir);
}

TEST_CASE("relative errors are signed fractions of the measurement") {
  CHECK(relative_error(110, 100) == doctest::Approx(0.10));
  CHECK(relative_error(90, 100) == doctest::Approx(-0.10));
  CHECK(relative_error(0, 0) == 0);
  CHECK(std::isinf(relative_error(1, 0)));
  const Comparison c = compare("s.json", result(1.2, 100, 1000, 400, "simulated"), result(1.0, 101, 1000, 500, "measured"));
  CHECK(c.wall_error == doctest::Approx(0.2));
  CHECK(c.rpcs_error == doctest::Approx(-1.0 / 101));
  CHECK(c.bytes_error == 0);
  CHECK(c.sender_peak_error == doctest::Approx(-0.2));  // largest host: 400 against 500
}

TEST_CASE("the verdict: median and largest wall error, and each figure against its threshold") {
  std::vector<Comparison> rows;
  rows.push_back(compare("s", result(1.05, 100, 1000, 100, "simulated"), result(1.0, 100, 1000, 100, "measured")));
  rows.push_back(compare("s", result(0.90, 100, 1000, 100, "simulated"), result(1.0, 100, 1000, 100, "measured")));
  rows.push_back(compare("s", result(1.20, 100, 1000, 100, "simulated"), result(1.0, 100, 1000, 100, "measured")));
  Thresholds t;
  Verdict v = judge(rows, t);
  CHECK(v.wall_median_error == doctest::Approx(0.10));
  CHECK(v.wall_max_error == doctest::Approx(0.20));
  CHECK(v.passed());
  t.wall_median_error = 0.09;
  v = judge(rows, t);
  REQUIRE(v.violations.size() == 1);
  CHECK(v.violations[0].find("median wall-clock") != std::string::npos);
  CHECK_FALSE(row_exceeds(rows[0], t));

  rows.push_back(compare("s", result(1.0, 102, 1030, 130, "simulated"), result(1.0, 100, 1000, 100, "measured")));
  v = judge(rows, Thresholds{});
  CHECK(v.violations.size() == 3);  // RPCs 2% > 1%, bytes 3% > 2%, sender peak 30% > 15%
  CHECK(row_exceeds(rows.back(), Thresholds{}));
  CHECK_FALSE(judge({}, Thresholds{}).passed());  // nothing compared is no pass
}

TEST_CASE("the comparison JSON holds both results, the errors, the thresholds and the verdict") {
  std::vector<Comparison> rows{compare("s.json", result(1.05, 100, 1000, 100, "simulated"),
                                       result(1.0, 100, 1000, 100, "measured"))};
  const Verdict v = judge(rows, Thresholds{});
  const auto j = nlohmann::json::parse(comparisons_to_json(rows, Thresholds{}, v));
  CHECK(j["thresholds"]["wall_max_error"] == 0.25);
  CHECK(j["summary"]["passed"] == true);
  REQUIRE(j["comparisons"].size() == 1);
  CHECK(j["comparisons"][0]["predicted"]["source"] == "simulated");
  CHECK(j["comparisons"][0]["measured"]["source"] == "measured");
  CHECK(j["comparisons"][0]["error"]["wall_s"].get<double>() == doctest::Approx(0.05));
  CHECK(j["comparisons"][0]["costs"].contains("rpc_cpu_us"));  // the costs the simulator was given
  CHECK(j["summary"]["no_verdict"].empty());
}

TEST_CASE("no verdict when the machine was too noisy: neither a pass nor a fail, and said why") {
  std::vector<Comparison> rows{compare("s.json", result(1.05, 100, 1000, 100, "simulated"),
                                       result(1.0, 100, 1000, 100, "measured"))};
  Verdict v = judge(rows, Thresholds{});
  CHECK(v.passed());
  v.no_verdict.push_back("s.json: 16K: 1 of 6 runs on a steady machine");
  CHECK_FALSE(v.judged());
  CHECK_FALSE(v.passed());
  const auto j = nlohmann::json::parse(comparisons_to_json(rows, Thresholds{}, v));
  CHECK(j["summary"]["passed"].is_null());
  CHECK(j["summary"]["no_verdict"][0] == "s.json: 16K: 1 of 6 runs on a steady machine");
}

TEST_CASE("a row measured only on an unsteady machine is shown and never judged") {
  std::vector<Comparison> rows{compare("s.json", result(1.05, 100, 1000, 100, "simulated"),
                                       result(1.0, 100, 1000, 100, "measured")),
                               compare("s.json", result(3.0, 100, 1000, 100, "simulated"),
                                       result(1.0, 100, 1000, 100, "measured"))};
  CHECK_FALSE(judge(rows, Thresholds{}).passed());  // 200% off: a fail when steady
  rows[1].steady = false;
  const Verdict v = judge(rows, Thresholds{});
  CHECK_FALSE(v.judged());
  REQUIRE(v.no_verdict.size() == 1);
  CHECK(v.no_verdict[0] == "s / p: measured only on an unsteady machine");
  const auto j = nlohmann::json::parse(comparisons_to_json(rows, Thresholds{}, v));
  CHECK(j["comparisons"][0]["steady"] == true);
  CHECK(j["comparisons"][1]["steady"] == false);
}

TEST_CASE("rows left unjudged, up to unjudged_max: the verdict is the others', and says which were left out") {
  std::vector<Comparison> rows{compare("s.json", result(1.05, 100, 1000, 100, "simulated"),
                                       result(1.0, 100, 1000, 100, "measured")),
                               compare("s.json", result(3.0, 100, 1000, 100, "simulated"),
                                       result(1.0, 100, 1000, 100, "measured")),
                               compare("s.json", result(1.1, 100, 1000, 100, "simulated"),
                                       result(1.0, 100, 1000, 100, "measured"))};
  rows[1].steady = false;
  rows[1].unsteady_why = "1 of 6 runs on a steady machine";
  Thresholds t;
  t.unjudged_max = 1;
  Verdict v = judge(rows, t);
  CHECK(v.judged());
  CHECK(v.passed());  // the 200% row is not among the judged
  REQUIRE(v.unjudged.size() == 1);
  CHECK(v.unjudged[0] == "s / p: 1 of 6 runs on a steady machine");
  CHECK(v.wall_max_error == doctest::Approx(0.1));
  CHECK(v.wall_median_error == doctest::Approx(0.075));
  // A judged row beyond its threshold still fails.
  rows[2].wall_error = 0.3;
  CHECK_FALSE(judge(rows, t).passed());
  CHECK(judge(rows, t).judged());
  // More unjudged than allowed: no verdict, saying how many.
  rows[0].steady = false;
  v = judge(rows, t);
  CHECK_FALSE(v.judged());
  REQUIRE(v.no_verdict.size() == 3);
  CHECK(v.no_verdict[2] == "2 of 3 rows unjudged, more than the 1 the thresholds allow");
  // None judged: no verdict, however many are allowed.
  rows[2].steady = false;
  t.unjudged_max = 5;
  CHECK_FALSE(judge(rows, t).judged());
  CHECK(judge(rows, t).no_verdict.back() == "no row judged");
  const auto j = nlohmann::json::parse(comparisons_to_json(rows, t, judge(rows, t)));
  CHECK(j["thresholds"]["unjudged_max"] == 5);
  CHECK(j["summary"]["unjudged"].size() == 3);
  CHECK(j["comparisons"][1]["unsteady_why"] == "1 of 6 runs on a steady machine");
}

TEST_CASE("a validation's measurements read back: scenario file, costs, measured result, thresholds") {
  const auto dir = std::filesystem::temp_directory_path() / ("exsim-measured-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  CostProfile costs = reference_cost_profile();
  costs.serialize_bytes_per_s = 3e9;
  costs.rpc_cpu_us = 42;
  costs.source = "calibrated";
  std::vector<Comparison> rows{compare("scenarios/x.json", result(1.05, 100, 1000, 100, "simulated"),
                                       result(1.0, 100, 1000, 100, "measured"), costs),
                               compare("scenarios/x.json", result(1.05, 100, 1000, 100, "simulated"),
                                       result(1.0, 100, 1000, 100, "measured"), costs)};
  rows[1].steady = false;
  rows[1].unsteady_why = "0 of 4 runs on a steady machine";
  Thresholds t;
  t.wall_max_error = 0.2;
  t.unjudged_max = 1;
  {
    std::ofstream(dir / "v.json") << comparisons_to_json(rows, t, judge(rows, t));
  }
  const Measurements m = load_measurements((dir / "v.json").string());
  REQUIRE(m.rows.size() == 2);
  CHECK(m.rows[0].steady);
  CHECK_FALSE(m.rows[1].steady);  // runs set aside stay set aside when judged again
  CHECK(m.rows[0].scenario_file == "scenarios/x.json");
  CHECK(m.rows[0].costs.rpc_cpu_us == 42);
  CHECK(m.rows[0].costs.serialize_bytes_per_s == 3e9);
  CHECK(m.rows[0].measured.wall_s == 1.0);
  CHECK(m.rows[0].measured.source == "measured");
  CHECK(m.thresholds.wall_max_error == 0.2);
  CHECK(m.thresholds.unjudged_max == 1);
  CHECK(m.rows[1].unsteady_why == "0 of 4 runs on a steady machine");
  // A document that is not a validation's names what is missing.
  {
    std::ofstream(dir / "bad.json") << R"({"comparisons": [{"scenario_file": 3, "steady": "yes"}]})";
  }
  std::string error;
  try {
    load_measurements((dir / "bad.json").string());
  } catch (const InputError& e) {
    error = e.what();
  }
  std::filesystem::remove_all(dir);
  CHECK(error.find("bad.json:/: missing required key 'thresholds'") != std::string::npos);
  CHECK(error.find("bad.json:/comparisons/0/scenario_file: expected a string") != std::string::npos);
  CHECK(error.find("bad.json:/comparisons/0: missing required key 'measured'") != std::string::npos);
  CHECK(error.find("bad.json:/comparisons/0/steady: expected true or false, got \"yes\"") != std::string::npos);
  CHECK(error.find("source") == std::string::npos);  // nothing said of what is not there
}

TEST_CASE("each deliberate model error changes what the simulator is given, never the measurement") {
  const Scenario base = test::scenario_from(R"({"name": "m", "cluster": {"hosts": 2, "nic_gbps": 10,
      "rtt_ms": {"same_group": 0.5}}, "costs": {"rpc_latency_us": 30, "lz4_compress_bytes_per_s": 5e8,
      "lz4_decompress_bytes_per_s": 2e9},
      "policies": {"a": {"in_flight": 2}, "b": {"in_flight": 4}},
      "workload": {"queries": [{"name": "q", "exchanges": [{"id": "x", "kind": "hash", "rows": 1000,
        "row": {"fixed_bytes": 24}, "lz4_ratio": 0.5}]}]}})");
  CHECK(model_error_names().size() == 5);
  for (const auto& name : model_error_names()) {
    const auto error = parse_model_error(name);
    REQUIRE(error);
    CHECK(to_string(*error) == name);
    Scenario s = base;
    apply(*error, s);
    switch (*error) {
      case ModelError::kNoLatency:
        CHECK(s.cluster.rtt.rtt(0, 1) == 0);
        CHECK(s.costs.rpc_latency_us == 0);
        break;
      case ModelError::kOneInFlight:
        CHECK(s.policies[0].in_flight == 1);
        CHECK(s.policies[1].in_flight == 1);
        break;
      case ModelError::kLz4HalfCost:
        CHECK(s.costs.lz4_compress_bytes_per_s == 1e9);
        CHECK(s.costs.lz4_decompress_bytes_per_s == 4e9);
        break;
      case ModelError::kLz4DoubleCost:
        CHECK(s.costs.lz4_compress_bytes_per_s == 2.5e8);
        CHECK(s.costs.lz4_decompress_bytes_per_s == 1e9);
        break;
      case ModelError::kNicDoubled:
        CHECK(s.cluster.nic_gbps == 20);
        break;
    }
  }
  CHECK_FALSE(parse_model_error("lz4-free"));
}

}  // namespace
}  // namespace exsim::validate
