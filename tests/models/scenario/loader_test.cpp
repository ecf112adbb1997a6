// Scenario loading: every malformed file in tests/data/bad/ is rejected with a
// message naming the file and the JSON pointer (its .expect file lists the
// fragments the message must contain), and good files load with their meaning.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <string_view>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "models/scenario/cost_figures.h"
#include "models/scenario/costs.h"
#include "models/scenario/enum_names.h"
#include "models/scenario/scenario_loader.h"
#include "tests/test_util.h"

namespace exsim {
namespace {

std::vector<std::string> lines_of(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) lines.push_back(line);
  }
  return lines;
}

TEST_CASE("every malformed scenario is rejected with file, JSON pointer and what was expected") {
  const std::filesystem::path dir = std::filesystem::path(EXSIM_SOURCE_DIR) / "tests/data/bad";
  int checked = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".json") continue;
    CAPTURE(entry.path().filename().string());
    auto expect_path = entry.path();
    expect_path.replace_extension(".expect");
    const auto expected = lines_of(expect_path);
    REQUIRE_FALSE(expected.empty());
    std::string message;
    try {
      load_scenario(entry.path().string());
    } catch (const InputError& e) {
      message = e.what();
    }
    REQUIRE_MESSAGE(!message.empty(), "the scenario loaded");
    CAPTURE(message);
    CHECK(message.find(entry.path().string()) != std::string::npos);
    for (const auto& fragment : expected) CHECK_MESSAGE(message.find(fragment) != std::string::npos, fragment);
    ++checked;
  }
  CHECK(checked >= 18);
}

TEST_CASE("all problems are reported at once") {
  const std::string text = test::load_error(R"({"name": "x", "mt_dop": -1, "cluster": {"hosts": 2, "nic_gbps": 0},
    "policies": {"p": {"in_flight": 0}}, "workload": {"queries": []}})");
  CHECK(text.find("/mt_dop") != std::string::npos);
  CHECK(text.find("/cluster/nic_gbps") != std::string::npos);
  CHECK(text.find("/policies/p/in_flight") != std::string::npos);
  CHECK(text.find("/workload/queries: expected at least one query") != std::string::npos);
}

TEST_CASE("an error in a value --set gave names that --set, and only there") {
  std::string message;
  try {
    parse_scenario(R"({"name": "x", "mt_dop": 1, "cluster": {"hosts": 2, "nic_gbps": 0},
        "policies": {"p": {}, "q": {}}, "workload": {"queries": [{"name": "q", "exchanges": []}]}})",
                   "s.json", {"mt_dop=-1", "policies.*.in_flight=0"});
  } catch (const InputError& e) {
    message = e.what();
  }
  CHECK(message.find("s.json:/mt_dop: expected an integer in [0, 1024], got -1 (set by --set mt_dop=-1)") !=
        std::string::npos);
  CHECK(message.find("/policies/q/in_flight: expected an integer in [1, 64], got 0 (set by --set policies.*.in_flight=0)") !=
        std::string::npos);
  // From the file itself: no --set named.
  CHECK(message.find("/cluster/nic_gbps: expected a number in [0.001, 100000], got 0\n") != std::string::npos);
}

TEST_CASE("a policy name that --set paths could not reach is refused") {
  for (const char* name : {"a.b", "*", ""}) {
    const std::string text = test::load_error(std::string(R"({"name": "x", "cluster": {"hosts": 2},
        "policies": {")") + name + R"(": {}}, "workload": {"queries": [{"name": "q", "exchanges": []}]}})");
    CAPTURE(name);
    CHECK(text.find("a policy name must be non-empty, without '.' or '*'") != std::string::npos);
  }
}

TEST_CASE("a check across keys that a --set broke names that --set too") {
  auto error_of = [](const std::vector<std::string>& sets) {
    try {
      parse_scenario(R"({"name": "x", "cluster": {"hosts": 5, "groups": {"a": 3, "b": 2}},
          "policies": {"p": {"buffer": {"budget": "4M", "min": "16K", "max": "1M"}}},
          "workload": {"queries": [{"name": "q", "exchanges": [{"id": "x", "kind": "hash", "rows": 10,
            "row": {"fixed_bytes": 8}, "lz4_ratio": 1}]}]}})",
                     "s.json", sets);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  // Reported at a sibling of the key set, and at its object.
  CHECK(error_of({"policies.p.buffer.max=8K"}).find("/policies/p/buffer/min: min 16K is above max 8K (with --set "
                                                     "policies.p.buffer.max=8K)") != std::string::npos);
  CHECK(error_of({"cluster.groups.a=2"}).find("/cluster/groups: groups hold 4 hosts but \"hosts\" is 5 (with --set "
                                               "cluster.groups.a=2)") != std::string::npos);
  // An unrelated --set is not named.
  CHECK(error_of({"cluster.groups.a=2", "mt_dop=2"}).find("mt_dop=2") == std::string::npos);
  // A host count out of range is that one error, not also a mismatch with the groups.
  const std::string zero = error_of({"cluster.hosts=0"});
  CHECK(zero.find("/cluster/hosts: expected an integer in [1, 1024], got 0") != std::string::npos);
  CHECK(zero.find("groups hold") == std::string::npos);
}

TEST_CASE("a number no double holds, and a duplicate key, are named by an escaped JSON pointer") {
  // RFC 6901: '/' in a key is "~1", '~' is "~0".
  CHECK(test::load_error(R"({"name": "x", "a/b": [1, 2, 1e999]})").find("test.json:/a~1b/2: number overflow") !=
        std::string::npos);
  CHECK(test::load_error(R"({"name": "x", "c~d": {"k": 1, "k": 2}})").find("test.json:/c~0d/k: duplicate key 'k'") !=
        std::string::npos);
}

TEST_CASE("a missing file is reported by name") {
  CHECK_THROWS_WITH_AS(load_scenario("/nonexistent/x.json"), doctest::Contains("/nonexistent/x.json"), InputError);
}

const char* kGood = R"({
  "name": "good", "seed": 5,
  "cluster": {"hosts": 5, "groups": {"a": 3, "b": 2}, "cores_per_host": 8, "nic_gbps": 25,
              "rtt_ms": {"same_group": 0.12, "cross_group": [0.5, 0.7]}},
  "mt_dop": 4,
  "policies": {"16K": {}, "budget-4M": {"buffer": {"budget": "4M", "min": "16K", "max": "256K"}},
               "b": {"buffer": {"flat": 65536}, "in_flight": 2, "compression": "none", "sender_layout": "v4.3"}},
  "workload": {"queries": [{"name": "q", "repeat": 2, "exchanges": [
    {"id": "x", "kind": "hash", "rows": 100, "row": {"fixed_bytes": 21, "varlen_bytes": {"dist": "uniform", "mean": 40, "max": 120}},
     "lz4_ratio": 0.55, "skew": 1.2},
    {"id": "y", "kind": "broadcast", "rows": 100, "row": {"fixed_bytes": 8}, "lz4_ratio": 0.9,
     "senders": {"hosts": ["h3"], "per_host": 1}, "receivers": {"hosts": "all", "per_host": 1}, "after": ["x"]},
    {"id": "z", "kind": "merge", "rows": 10, "row": {"fixed_bytes": 8}, "lz4_ratio": 1}]}]}})";

TEST_CASE("a good scenario loads with its meaning") {
  const Scenario s = test::scenario_from(kGood);
  CHECK(s.name == "good");
  REQUIRE(s.cluster.hosts.size() == 5);
  CHECK(s.cluster.hosts[3].name == "h3");
  CHECK(s.cluster.hosts[3].group == "b");
  CHECK(s.cluster.rtt.rtt_ms(0, 1) == doctest::Approx(0.12));
  CHECK(s.cluster.rtt.rtt(0, 0) == 20000);  // default self RTT 0.02 ms
  const double cross = s.cluster.rtt.rtt_ms(0, 4);
  CHECK(cross >= 0.5);
  CHECK(cross <= 0.7);
  CHECK(s.cluster.rtt.rtt_ms(4, 0) == cross);
  CHECK(s.cluster.rtt.rtt_ms(1, 4) != cross);  // sampled per host pair
  REQUIRE(s.policies.size() == 3);
  CHECK(s.policies[0].name == "16K");  // document order: the first is the baseline
  CHECK(s.policies[0].buffer.flat == 16384);
  CHECK(s.policies[0].compression == Compression::kLz4SkipLocal);
  CHECK(s.policies[1].capacity == CapacityRule::kBytes);  // a budget flushes by bytes
  CHECK(s.policies[2].in_flight == 2);
  CHECK(s.policies[2].sender_layout == SenderLayout::kV43);
  const Query& q = s.queries[0];
  CHECK(q.repeat == 2);
  CHECK(q.exchanges[0].senders.instances() == 20);  // 5 hosts x mt_dop 4
  CHECK(q.exchanges[0].row.varlen.mean() == 40);
  CHECK(q.exchanges[1].senders.instances() == 1);
  CHECK(q.exchanges[1].receivers.instances() == 5);
  CHECK(q.exchanges[1].after == std::vector<int>{0});
  CHECK(q.exchanges[2].receivers.instances() == 1);  // merge: one receiver by default
  CHECK(s.costs.source == "profiles/reference.json");
  CHECK(s.costs.serialize_bytes_per_s > 0);
}

TEST_CASE("the same seed samples the same RTT ranges; another seed others") {
  const Scenario a = test::scenario_from(kGood), b = test::scenario_from(kGood);
  const Scenario c = test::scenario_from(kGood, {"seed=6"});
  CHECK(a.cluster.rtt.rtt(0, 4) == b.cluster.rtt.rtt(0, 4));
  CHECK(a.cluster.rtt.rtt(0, 4) != c.cluster.rtt.rtt(0, 4));
}

TEST_CASE("an RTT matrix overrides the rtt_ms rules, which must still be well formed") {
  const std::string with = R"({"name": "m",
    "cluster": {"hosts": 2, "rtt_matrix_ms": [[0.01, 0.3], [0.3, 0.01]]},
    "policies": {"p": {}},
    "workload": {"queries": [{"name": "q", "exchanges": [{"id": "x", "kind": "hash", "rows": 1,
      "row": {"fixed_bytes": 8}, "lz4_ratio": 1}]}]}})";
  auto with_rules = [&](const std::string& rules) { return test::with_value(with, "/cluster/rtt_ms", rules); };
  const Scenario s = test::scenario_from(with_rules(R"({"same_group": 0.1})"));
  CHECK(s.cluster.rtt.rtt_ms(0, 1) == doctest::Approx(0.3));
  CHECK(s.cluster.rtt.rtt_ms(0, 0) == doctest::Approx(0.01));
  CHECK(test::load_error(with_rules(R"({"same_grup": 0.1})")).find("/cluster/rtt_ms/same_grup") != std::string::npos);
  // Rules the matrix overrides need not cover every pair: only what they say is checked.
  const Scenario partial = test::scenario_from(with_rules(R"({"self": 0.02})"));
  CHECK(partial.cluster.rtt.rtt_ms(0, 1) == doctest::Approx(0.3));
}

TEST_CASE("a matrix entry that is no RTT is said once, where it is, not again as asymmetry") {
  const std::string scenario = R"({"name": "m",
    "cluster": {"hosts": 2, "rtt_matrix_ms": [[0.01, -0.1], [0.1, 0.01]]},
    "policies": {"p": {}},
    "workload": {"queries": [{"name": "q", "exchanges": [{"id": "x", "kind": "hash", "rows": 1,
      "row": {"fixed_bytes": 8}, "lz4_ratio": 1}]}]}})";
  const std::string text = test::load_error(scenario);
  CHECK(text.find("/cluster/rtt_matrix_ms/0/1: expected a number in [0, ") != std::string::npos);
  CHECK(text.find("asymmetric") == std::string::npos);
  // Two valid entries that differ are asymmetry.
  CHECK(test::load_error(test::with_value(scenario, "/cluster/rtt_matrix_ms/0/1", "0.2"))
            .find("/cluster/rtt_matrix_ms/0/1: asymmetric matrix: [0][1] = 0.2 but [1][0] = 0.1") != std::string::npos);
}

TEST_CASE("rules that give the RTTs must cover every pair, and a misspelt rule is named with a hint") {
  const std::string cluster = R"({"name": "r", "cluster": {"hosts": 3, "groups": {"a": 2, "b": 1}},
    "policies": {"p": {}}, "workload": {"queries": [{"name": "q", "exchanges": [{"id": "x", "kind": "hash",
    "rows": 1, "row": {"fixed_bytes": 8}, "lz4_ratio": 1}]}]}})";
  auto with_rules = [&](const std::string& rules) { return test::with_value(cluster, "/cluster/rtt_ms", rules); };
  CHECK(test::load_error(with_rules(R"({"same_group": 0.1})")).find("no RTT between groups 'a' and 'b'") !=
        std::string::npos);
  const std::string typo = test::load_error(with_rules(R"({"same_group": 0.1, "cross_grop": 0.5})"));
  CHECK(typo.find("/cluster/rtt_ms/cross_grop: unknown key 'cross_grop' (did you mean 'cross_group'?)") !=
        std::string::npos);
  CHECK(test::load_error(with_rules(R"({"same_group": 0.1, "a-bb": 0.5})")).find("(did you mean 'a-b'?)") !=
        std::string::npos);
}

TEST_CASE("costs: a path relative to the scenario, or inline values over the reference profile") {
  const Scenario s =
      test::scenario_from(test::with_value(kGood, "/costs", R"({"rpc_latency_us": 55, "cores": 2})"));
  CHECK(s.costs.rpc_latency_us == 55);
  CHECK(s.costs.cores == 2);
  CHECK(s.costs.serialize_bytes_per_s == reference_cost_profile().serialize_bytes_per_s);
  const std::string missing = test::load_error(test::with_value(kGood, "/costs", R"("no/such/profile.json")"));
  CHECK(missing.find("test.json:/costs: costs profile: no/such/profile.json: cannot open") != std::string::npos);
  CHECK(s.costs.source == "inline");
}

TEST_CASE("an agent reads no path a scenario names: the coordinator inlines the costs profile first") {
  const std::string by_path = test::with_value(kGood, "/costs", R"("impala-m6id-4xlarge.json")");
  const std::string file = std::string(EXSIM_SOURCE_DIR) + "/profiles/scenario.json";
  const Scenario read = parse_scenario(by_path, file);
  // Refused by path, with neither the path nor anything of the file in the message.
  std::string refused;
  try {
    parse_scenario(test::with_value(kGood, "/costs", R"("/etc/passwd")"), file, {}, ScenarioPaths::kRefuse);
  } catch (const InputError& e) {
    refused = e.what();
  }
  CHECK(refused.find("/costs: expected the costs profile itself") != std::string::npos);
  CHECK(refused.find("passwd") == std::string::npos);
  // Inlined, the same costs, read without a file.
  const std::string inlined = with_costs_inlined(by_path, file);
  CHECK(inlined.find("impala-m6id-4xlarge.json") == std::string::npos);
  const Scenario sent = parse_scenario(inlined, file, {}, ScenarioPaths::kRefuse);
  CHECK(sent.costs.serialize_bytes_per_s == read.costs.serialize_bytes_per_s);
  CHECK(sent.costs.rpc_latency_us == read.costs.rpc_latency_us);
  CHECK(sent.costs.cores == read.costs.cores);
  // Text that names no profile passes unchanged; a profile that cannot be read is named.
  CHECK(with_costs_inlined(kGood, file) == kGood);
  CHECK_THROWS_AS(with_costs_inlined(test::with_value(kGood, "/costs", R"("missing.json")"), file), InputError);
}

TEST_CASE("costs changed by --set are named as the profile they change and the keys changed") {
  auto document = nlohmann::ordered_json::parse(kGood);
  document.erase("costs");
  const std::string no_costs = document.dump();
  const Scenario set = parse_scenario(no_costs, "s.json", {"costs.rpc_cpu_us=10", "costs.cores=4"});
  CHECK(set.costs.rpc_cpu_us == 10);
  CHECK(set.costs.source == "profiles/reference.json + rpc_cpu_us, cores (--set)");
  // The scenario's own figures with one changed by --set.
  const Scenario mixed = parse_scenario(test::with_value(kGood, "/costs", R"({"rpc_latency_us": 55})"), "s.json",
                                        {"costs.cores=4"});
  CHECK(mixed.costs.source == "inline + cores (--set)");
  CHECK(test::scenario_from(no_costs).costs.source == "profiles/reference.json");
}

TEST_CASE("a profile's spread: read with it, checked, and its corners move each cost its own way") {
  const Scenario s = test::scenario_from(test::with_value(kGood, "/costs", R"({"serialize_bytes_per_s": 1e9,
      "rpc_cpu_us": 10, "sender_wake_us": 4, "spread": {
        "serialize_bytes_per_s": {"median": 2e9, "min": 1e9, "max": 3e9},
        "rpc_cpu_us": {"median": 10, "min": 8, "max": 15},
        "sender_wake_us": {"median": 6, "min": 4, "max": 7}}})"));
  REQUIRE(s.costs.spread.size() == 3);
  // Relative to the median (the profile's value may have been --set since):
  // the rate at 1e9 moves to 0.5e9 and 1.5e9; a time moves the other way.
  const CostProfile cheap = cost_corner(s.costs, CostCorner::kCheap);
  const CostProfile dear = cost_corner(s.costs, CostCorner::kDear);
  CHECK(cheap.serialize_bytes_per_s == doctest::Approx(1.5e9));
  CHECK(dear.serialize_bytes_per_s == doctest::Approx(0.5e9));
  CHECK(cheap.rpc_cpu_us == doctest::Approx(8));
  CHECK(dear.rpc_cpu_us == doctest::Approx(15));
  // A figure calibrate keeps the least of is that least: from it, up to the largest.
  CHECK(cheap.sender_wake_us == doctest::Approx(4));
  CHECK(dear.sender_wake_us == doctest::Approx(7));
  // Figures without a spread stay.
  CHECK(cheap.lz4_compress_bytes_per_s == s.costs.lz4_compress_bytes_per_s);
  CHECK(has_cost_uncertainty(s.costs));
  // A stated uncertainty moves every cost: rates up 20% at the cheap end, times down.
  // The reference profile states every figure's range; a profile without a
  // spread has none.
  Scenario plain = test::scenario_from(kGood);
  CHECK(has_cost_uncertainty(plain.costs));
  plain.costs.spread.clear();
  CHECK_FALSE(has_cost_uncertainty(plain.costs));
  CHECK(has_cost_uncertainty(plain.costs, 0.2));
  const CostProfile cheap20 = cost_corner(plain.costs, CostCorner::kCheap, 0.2);
  CHECK(cheap20.lz4_compress_bytes_per_s == doctest::Approx(1.2 * plain.costs.lz4_compress_bytes_per_s));
  CHECK(cheap20.rpc_cpu_us == doctest::Approx(0.8 * plain.costs.rpc_cpu_us));
  CHECK(cheap20.wire_overhead_bytes == plain.costs.wire_overhead_bytes);  // framing is bytes, not a cost that varies
  // A spread that names no figure, or is out of order, is named by its path.
  const std::string bad = test::load_error(test::with_value(kGood, "/costs", R"({"spread": {
      "serialise_bytes_per_s": {"median": 1, "min": 1, "max": 1},
      "rpc_cpu_us": {"median": 10, "min": 12, "max": 15}}})"));
  CHECK(bad.find("/costs/spread/serialise_bytes_per_s: not a figure of a costs profile") != std::string::npos);
  CHECK(bad.find("/costs/spread/rpc_cpu_us: expected min <= median <= max") != std::string::npos);
}

TEST_CASE("costs moved to a slower machine: per-call figures by the calls' slowdown, other work by compute's") {
  const Scenario s = test::scenario_from(test::with_value(kGood, "/costs", R"({"serialize_bytes_per_s": 1e9,
      "rpc_cpu_us": 10, "sender_wake_us": 4, "deserialize_batch_us": 2,
      "cache_miss_byte_ns": 0.5, "transfer_bytes_per_s": 0, "cores": 1, "core_cache_bytes": 2097152})"));
  const CostProfile slow = at_slowdown(s.costs, {1.25, 1.5});
  CHECK(slow.serialize_bytes_per_s == doctest::Approx(0.8e9));  // a rate divided
  CHECK(slow.deserialize_batch_us == doctest::Approx(2.5));     // a time multiplied
  CHECK(slow.cache_miss_byte_ns == doctest::Approx(0.625));
  CHECK(slow.rpc_cpu_us == doctest::Approx(15));  // a call's, by the calls' slowdown
  CHECK(slow.sender_wake_us == doctest::Approx(6));
  CostProfile unshared = s.costs;
  unshared.rpc_cpu_busy_us = -1;
  CHECK(at_slowdown(unshared, {1.25, 1.5}).rpc_cpu_busy_us == -1);  // none stays none
  CHECK(slow.transfer_bytes_per_s == 0);       // free stays free
  CHECK(slow.cores == 1);                      // the machine is not work
  CHECK(slow.core_cache_bytes == 2097152);
  CHECK(slow.wire_overhead_bytes == s.costs.wire_overhead_bytes);
  // A faster machine the other way; no slowdown, no change.
  CHECK(at_slowdown(s.costs, {0.8, 1}).serialize_bytes_per_s == doctest::Approx(1.25e9));
  CHECK(at_slowdown(s.costs, {}).rpc_cpu_us == s.costs.rpc_cpu_us);
}

TEST_CASE("costs: a figure at another machine's speed: times multiplied, rates divided, sizes as they are") {
  const CostFigure& rpc = *find_cost_figure("rpc_cpu_us");
  const CostFigure& serialize = *find_cost_figure("serialize_bytes_per_s");
  const CostFigure& cache = *find_cost_figure("cache_bytes");
  CHECK(moves_with_calls(rpc));
  CHECK(moves_with_calls(*find_cost_figure("sender_wake_us")));
  CHECK_FALSE(moves_with_calls(serialize));
  CHECK(at_factor(rpc, 40, 1.5) == doctest::Approx(60));
  CHECK(at_factor(rpc, 60, 1 / 1.5) == doctest::Approx(40));  // moved back
  CHECK(at_factor(serialize, 3e9, 1.5) == doctest::Approx(2e9));
  CHECK(at_factor(cache, 1 << 20, 1.5) == 1 << 20);
  CHECK(at_factor(*find_cost_figure("rpc_cpu_busy_us"), -1, 1.5) == -1);  // none stays none
}

TEST_CASE("a costs profile means the same inline and as a file: keys it leaves out take the reference's") {
  const std::string profile = R"({"serialize_bytes_per_s": 2.0e9, "deserialize_bytes_per_s": 4.0e9,
    "lz4_compress_bytes_per_s": 5.0e8, "lz4_decompress_bytes_per_s": 2.5e9, "rpc_cpu_us": 8.0})";
  const auto dir = std::filesystem::temp_directory_path() / "exsim_costs_test";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "c.json") << profile;
  auto with_costs = [&](const std::string& costs) { return test::with_value(kGood, "/costs", costs); };
  const CostProfile inline_costs = test::scenario_from(with_costs(profile)).costs;
  const CostProfile file_costs = load_cost_profile((dir / "c.json").string());
  std::filesystem::remove_all(dir);
  const CostProfile& ref = reference_cost_profile();
  CHECK(inline_costs.serialize_bytes_per_s == 2.0e9);
  CHECK(inline_costs.rpc_cpu_us == 8.0);
  for (const CostProfile* c : {&inline_costs, &file_costs}) {
    CHECK(c->serialize_bytes_per_s == inline_costs.serialize_bytes_per_s);
    CHECK(c->deserialize_bytes_per_s == inline_costs.deserialize_bytes_per_s);
    CHECK(c->lz4_compress_bytes_per_s == inline_costs.lz4_compress_bytes_per_s);
    CHECK(c->lz4_decompress_bytes_per_s == inline_costs.lz4_decompress_bytes_per_s);
    CHECK(c->rpc_cpu_us == inline_costs.rpc_cpu_us);
    CHECK(c->rpc_latency_us == ref.rpc_latency_us);  // left out: the reference's
    CHECK(c->transfer_bytes_per_s == ref.transfer_bytes_per_s);
    CHECK(c->partition_rows_per_s == ref.partition_rows_per_s);
    CHECK(c->wire_overhead_bytes == ref.wire_overhead_bytes);
  }
  CHECK(ref.transfer_bytes_per_s > 0);  // else the checks above could not tell the two apart
  CHECK(ref.partition_rows_per_s > 0);
}

TEST_CASE("a profile written and read back has the same costs, free stages (0) included") {
  CostProfile free_stages = reference_cost_profile();
  free_stages.transfer_bytes_per_s = 0;
  free_stages.partition_rows_per_s = 0;
  free_stages.rpc_latency_us = 0;
  const auto path = std::filesystem::temp_directory_path() / "exsim_profile_round_trip.json";
  std::ofstream(path) << cost_profile_json(free_stages, "free stages", {}, {});
  const CostProfile back = load_cost_profile(path.string());
  std::filesystem::remove(path);
  CHECK(back.transfer_bytes_per_s == 0);
  CHECK(back.partition_rows_per_s == 0);
  CHECK(back.rpc_latency_us == 0);
  CHECK(back.serialize_bytes_per_s == free_stages.serialize_bytes_per_s);
  CHECK(back.wire_overhead_bytes == free_stages.wire_overhead_bytes);
}

TEST_CASE("every cost figure is written and read back as its own field") {
  // Each figure gets a value of its own, so one read into or written from
  // another's field, or left out of the table, shows.
  // A share is a fraction: its own value, scaled into [0, 1].
  const auto distinct_value = [](const CostFigure& figure, double value) {
    return figure.reading == CostFigure::Reading::kShare ? value / 1000 : value;
  };
  CostProfile distinct;
  double value = 2;
  for (const CostFigure& figure : cost_figures()) {
    figure.set(distinct, distinct_value(figure, value));
    value += 1;
  }
  std::set<std::string_view> keys;
  for (const CostFigure& figure : cost_figures()) {
    CAPTURE(figure.key);
    CHECK(keys.insert(figure.key).second);
    CHECK(find_cost_figure(figure.key) == &figure);
    if (figure.summary != CostFigure::Summary::kNotMeasured) {
      CHECK(figure.least_measurable < figure.most_measurable);
    }
  }
  const auto path = std::filesystem::temp_directory_path() / "exsim_profile_figures.json";
  std::ofstream(path) << cost_profile_json(distinct, "distinct", {}, {});
  const CostProfile back = load_cost_profile(path.string());
  std::filesystem::remove(path);
  value = 2;
  for (const CostFigure& figure : cost_figures()) {
    CAPTURE(figure.key);
    CHECK(figure.get(back) == distinct_value(figure, value));
    value += 1;
  }
  CHECK(find_cost_figure("source") == nullptr);  // a profile's file, not a figure
}

TEST_CASE("var-len bytes take sizes as every size in a scenario does") {
  const std::string base = R"({"name": "v", "cluster": {"hosts": 1}, "policies": {"p": {}},
    "workload": {"queries": [{"name": "q", "exchanges": [{"id": "x", "kind": "hash", "rows": 1,
    "row": {"fixed_bytes": 8}, "lz4_ratio": 1}]}]}})";
  auto with_varlen = [&](const std::string& varlen) {
    return test::with_value(base, "/workload/queries/0/exchanges/0/row/varlen_bytes", varlen);
  };
  CHECK(test::scenario_from(with_varlen(R"("1K")")).queries[0].exchanges[0].row.varlen.mean() == 1024);
  CHECK(test::scenario_from(with_varlen("12.5")).queries[0].exchanges[0].row.varlen.mean() == 12.5);
  const Scenario ranged = test::scenario_from(with_varlen(R"({"dist": "uniform", "mean": "1K", "max": "4K"})"));
  CHECK(ranged.queries[0].exchanges[0].row.varlen.mean() == 1024);
  CHECK(ranged.queries[0].exchanges[0].row.varlen.max() == 4096);
  CHECK(test::load_error(with_varlen(R"("1X")")).find("row/varlen_bytes: expected a size in bytes") !=
        std::string::npos);
  CHECK(test::load_error(with_varlen("[1]")).find("row/varlen_bytes: expected bytes per row") != std::string::npos);
}

TEST_CASE("a seed beyond 64-bit signed range is refused with the range it must be in") {
  const std::string error = test::load_error(test::with_value(kGood, "/seed", "9223372036854775808"));
  CHECK(error.find("/seed: expected an integer in [0, 9223372036854775807], got 9223372036854775808") !=
        std::string::npos);
}

TEST_CASE("the shipped reference profile has a source for every figure") {
  // The file and the copy built into exsim (used when no costs are given) agree
  // on every figure.
  const CostProfile file = load_cost_profile(std::string(EXSIM_SOURCE_DIR) + "/profiles/reference.json");
  const CostProfile built_in = reference_cost_profile();
  CHECK(file.serialize_bytes_per_s == built_in.serialize_bytes_per_s);
  CHECK(file.deserialize_bytes_per_s == built_in.deserialize_bytes_per_s);
  CHECK(file.lz4_compress_bytes_per_s == built_in.lz4_compress_bytes_per_s);
  CHECK(file.lz4_decompress_bytes_per_s == built_in.lz4_decompress_bytes_per_s);
  CHECK(file.rpc_cpu_us == built_in.rpc_cpu_us);
  CHECK(file.rpc_caller_cpu_us == built_in.rpc_caller_cpu_us);
  CHECK(file.rpc_latency_us == built_in.rpc_latency_us);
  CHECK(file.transfer_bytes_per_s == built_in.transfer_bytes_per_s);
  CHECK(file.partition_rows_per_s == built_in.partition_rows_per_s);
  CHECK(file.wire_overhead_bytes == built_in.wire_overhead_bytes);
  CHECK(file.serialize_row_ns == built_in.serialize_row_ns);
  // Every figure in the file has a source: a measurement, a derivation, a document,
  // or the word "assumption" (a figure no source gives, to be calibrated).
  std::ifstream in(std::string(EXSIM_SOURCE_DIR) + "/profiles/reference.json");
  const auto profile = nlohmann::json::parse(in);
  const auto& sources = profile.at("sources");
  int figures = 0;
  for (const auto& [key, value] : profile.items()) {
    if (!value.is_number()) continue;
    ++figures;
    CAPTURE(key);
    REQUIRE(sources.contains(key));
    const std::string source = sources.at(key).get<std::string>();
    CHECK((source.starts_with("measured") || source.starts_with("derived") || source.starts_with("assumption") ||
           source.starts_with("LZ4 README")));
    CHECK(source.size() > 40);
  }
  CHECK(figures == 26);
  // And the figures it leaves out (a call's CPU among many calls, or taken
  // busy: none) say so, with the range they could be in instead.
  int left_out = 0;
  for (const auto& [key, value] : sources.items()) {
    if (profile.contains(key)) continue;
    ++left_out;
    CAPTURE(key);
    CHECK(find_cost_figure(key) != nullptr);
    CHECK(value.get<std::string>().starts_with("none: "));
    CHECK(profile.at("spread").contains(key));
  }
  CHECK(left_out == 2);
  CHECK(sources.size() == 28);
  // Every measured or derived figure has its range, zeros included.
  const auto& spread = profile.at("spread");
  for (const auto& [key, value] : profile.items()) {
    // The framing's bytes, the service threads and the core's cache are the machine's, not costs that vary.
    if (!value.is_number() || key == "wire_overhead_bytes" || key == "service_threads" || key == "core_cache_bytes") {
      continue;
    }
    CAPTURE(key);
    CHECK(spread.contains(key));
  }
}

}  // namespace
}  // namespace exsim
