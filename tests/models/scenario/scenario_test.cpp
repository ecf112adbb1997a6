// models/scenario: --set overrides, var-len distributions, RTTs by seed and by
// topology, each enum's names (loading and its errors: loader_test.cpp).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "models/base/error.h"
#include "models/base/random.h"
#include "models/scenario/enum_names.h"
#include "models/scenario/overrides.h"
#include "models/scenario/varlen.h"
#include "tests/test_util.h"

namespace exsim {
namespace {

TEST_CASE("--set overrides any value by its dotted path") {
  nlohmann::ordered_json doc = nlohmann::ordered_json::parse(
      R"({"mt_dop": 0, "policies": {"16K": {"buffer": {"flat": "16K"}}, "64K": {}},
          "workload": {"queries": [{"name": "q", "repeat": 1}]}})");
  apply_override(doc, "mt_dop=8");
  CHECK(doc["mt_dop"] == 8);
  apply_override(doc, "policies.16K.in_flight=2");
  CHECK(doc["policies"]["16K"]["in_flight"] == 2);
  apply_override(doc, "policies.*.compression=none");
  CHECK(doc["policies"]["16K"]["compression"] == "none");
  CHECK(doc["policies"]["64K"]["compression"] == "none");
  apply_override(doc, "workload.queries.0.repeat=3");
  CHECK(doc["workload"]["queries"][0]["repeat"] == 3);
  apply_override(doc, "policies.64K.buffer={\"flat\": \"64K\"}");
  CHECK(doc["policies"]["64K"]["buffer"]["flat"] == "64K");
  CHECK_THROWS_AS(apply_override(doc, "mt_dop"), UsageError);
  CHECK_THROWS_AS(apply_override(doc, "workload.queries.5.repeat=1"), UsageError);
  CHECK_THROWS_AS(apply_override(doc, "mt_dop.x=1"), UsageError);
  // A misspelt policy is not added as a new one with every default.
  CHECK_THROWS_WITH_AS(apply_override(doc, "policies.16X.in_flight=2"), doctest::Contains("did you mean '16K'"),
                       UsageError);
  CHECK_FALSE(doc["policies"].contains("16X"));
  nlohmann::ordered_json grouped = nlohmann::ordered_json::parse(R"({"cluster": {"hosts": 3, "groups": {"a": 2, "b": 1}}})");
  CHECK_THROWS_AS(apply_override(grouped, "cluster.groups.bb=2"), UsageError);
  apply_override(grouped, "cluster.groups.b=2");
  CHECK(grouped["cluster"]["groups"]["b"] == 2);
}

TEST_CASE("var-len distributions have the mean they are given and respect max") {
  Random random(1);
  for (auto d : {VarLenDistribution::uniform(40, 120), VarLenDistribution::uniform(80, 100),
                 VarLenDistribution::exponential(20, 200), VarLenDistribution::fixed(7)}) {
    double total = 0;
    const int batches = 4000;
    for (int i = 0; i < batches; ++i) {
      std::int64_t sum = d.sample_sum(10, random);  // exact draws (few rows)
      CHECK(sum <= static_cast<std::int64_t>(10 * d.max() + 0.5));
      CHECK(sum >= 0);
      total += static_cast<double>(sum);
    }
    CHECK(total / (batches * 10) == doctest::Approx(d.mean()).epsilon(0.02));
    double big = 0;
    for (int i = 0; i < 1000; ++i) big += static_cast<double>(d.sample_sum(1000, random));  // normal approximation
    CHECK(big / 1e6 == doctest::Approx(d.mean()).epsilon(0.01));
  }
}

TEST_CASE("a topology gives RTTs by shortest path") {
  const Scenario s = test::scenario_from(R"({"name": "t",
    "cluster": {"hosts": 3, "topology": {"switches": ["tor-a", "tor-b"], "links": [
      {"from": "h0", "to": "tor-a", "rtt_ms": 0.05}, {"from": "h1", "to": "tor-a", "rtt_ms": 0.05},
      {"from": "h2", "to": "tor-b", "rtt_ms": 0.05}, {"from": "tor-a", "to": "tor-b", "rtt_ms": 0.5},
      {"from": "h0", "to": "h2", "rtt_ms": 2.0}]}},
    "policies": {"p": {}},
    "workload": {"queries": [{"name": "q", "exchanges": [{"id": "x", "kind": "hash", "rows": 1,
      "row": {"fixed_bytes": 8}, "lz4_ratio": 1}]}]}})");
  CHECK(s.cluster.rtt.rtt_ms(0, 1) == doctest::Approx(0.1));
  CHECK(s.cluster.rtt.rtt_ms(0, 2) == doctest::Approx(0.6));  // via the switches, not the 2 ms link
  CHECK(s.cluster.rtt.rtt_ms(1, 2) == doctest::Approx(0.6));
  CHECK(test::load_error(R"({"name": "t", "cluster": {"hosts": 2, "topology": {"links": [
      {"from": "h0", "to": "s9", "rtt_ms": 0.1}]}}, "policies": {"p": {}},
      "workload": {"queries": [{"name": "q", "exchanges": [{"id": "x", "kind": "hash", "rows": 1,
      "row": {"fixed_bytes": 8}, "lz4_ratio": 1}]}]}})").find("unknown node 's9'") != std::string::npos);
}

// Each enum's one table: every name a scenario may write loads as its value,
// and the value is written back by the same name.
template <typename E>
void check_round_trip(const char* key) {
  for (std::size_t i = 0; i < EnumNames<E>::kNames.size(); ++i) {
    CAPTURE(EnumNames<E>::kNames[i]);
    const std::string text = fmt::format(R"({{"{}": "{}"}})", key, EnumNames<E>::kNames[i]);
    const nlohmann::ordered_json doc = nlohmann::ordered_json::parse(text);
    Diagnostics diagnostics("t.json");
    const JsonNode node(&doc, "", &diagnostics);
    const E value = read_enum(node.member(key), static_cast<E>(EnumNames<E>::kNames.size() - 1 - i));
    CHECK(diagnostics.ok());
    CHECK(static_cast<std::size_t>(value) == i);
    CHECK(name_of(value) == EnumNames<E>::kNames[i]);
  }
}

TEST_CASE("each enum's names load as their values and are written back alike") {
  check_round_trip<CapacityRule>("capacity");
  check_round_trip<Compression>("compression");
  check_round_trip<BroadcastSerialize>("broadcast_serialize");
  check_round_trip<SenderLayout>("sender_layout");
  check_round_trip<PartitionKind>("kind");
}

}  // namespace
}  // namespace exsim
