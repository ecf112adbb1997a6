// Sweeps: variations, the numbering of points, shards that cover every point
// once, and merging shard files back into one sweep.
#include <doctest/doctest.h>

#include <set>

#include "models/base/error.h"
#include "models/results/sweep.h"

namespace exsim {
namespace {

TEST_CASE("a variation is KEY=V1,V2,...; anything else is a usage error") {
  const Variation v = parse_variation("policies.*.buffer.flat=16K,64K,128K");
  CHECK(v.key == "policies.*.buffer.flat");
  CHECK(v.values == std::vector<std::string>{"16K", "64K", "128K"});
  CHECK(parse_variation("mt_dop=8").values == std::vector<std::string>{"8"});
  CHECK_THROWS_AS(parse_variation("mt_dop"), UsageError);
  CHECK_THROWS_AS(parse_variation("=1,2"), UsageError);
  CHECK_THROWS_AS(parse_variation("mt_dop="), UsageError);
  CHECK_THROWS_WITH_AS(parse_variation("mt_dop=0,,8"), doctest::Contains("empty value"), UsageError);
  CHECK_THROWS_WITH_AS(parse_variation("mt_dop=1,2,1"), doctest::Contains("the value 1 is given twice"), UsageError);
  // JSON objects, lists and strings, as --set takes them, keep their commas.
  CHECK(parse_variation(R"(cluster.rtt_ms={"same_group":0.1,"cross_group":0.5},{"same_group":0.2})").values ==
        std::vector<std::string>{R"({"same_group":0.1,"cross_group":0.5})", R"({"same_group":0.2})"});
  CHECK(parse_variation(R"(x=[1,2],[3],"a,b")").values == std::vector<std::string>{"[1,2]", "[3]", R"("a,b")"});
}

TEST_CASE("points are the cartesian product, the last variation changing fastest") {
  const SweepPlan plan({parse_variation("mt_dop=0,8"), parse_variation("policies.*.in_flight=1,2,3")});
  REQUIRE(plan.size() == 6);
  CHECK(plan.point(0).label() == "mt_dop=0 policies.*.in_flight=1");
  CHECK(plan.point(2).label() == "mt_dop=0 policies.*.in_flight=3");
  CHECK(plan.point(3).label() == "mt_dop=8 policies.*.in_flight=1");
  CHECK(plan.point(5).overrides() == std::vector<std::string>{"mt_dop=8", "policies.*.in_flight=3"});
  std::set<std::string> labels;
  for (std::size_t i = 0; i < plan.size(); ++i) labels.insert(plan.point(i).label());
  CHECK(labels.size() == 6);
  CHECK_THROWS_AS(SweepPlan({}), UsageError);
  CHECK_THROWS_WITH_AS(SweepPlan({parse_variation("mt_dop=0"), parse_variation("mt_dop=1")}),
                       doctest::Contains("varied twice"), UsageError);
}

TEST_CASE("the shards K/N of a sweep hold every point exactly once") {
  CHECK(parse_shard("2/3").k == 2);
  CHECK(parse_shard("2/3").n == 3);
  for (const char* bad : {"0/3", "4/3", "3", "a/b", "1/0", "-1/2", "1/2x"}) {
    CAPTURE(bad);
    CHECK_THROWS_AS(parse_shard(bad), UsageError);
  }
  for (int n = 1; n <= 5; ++n) {
    for (std::size_t i = 0; i < 40; ++i) {
      int holders = 0;
      for (int k = 1; k <= n; ++k) holders += Shard{k, n}.holds(i) ? 1 : 0;
      CHECK(holders == 1);
    }
  }
}

std::string line(int point, int points, const std::string& policy, const std::string& vary = "[0,8]",
                 const std::string& scenario = "s") {
  return "{\"sweep\":{\"point\":" + std::to_string(point) + ",\"points\":" + std::to_string(points) +
         ",\"set\":{\"mt_dop\":0},\"vary\":{\"mt_dop\":" + vary + "}},\"scenario\":\"" + scenario +
         "\",\"policy\":\"" + policy + "\"}\n";
}

TEST_CASE("merging orders by point and policy and keeps each line as written") {
  const std::string a = line(2, 3, "16K") + line(2, 3, "64K") + line(0, 3, "16K") + line(0, 3, "64K");
  const std::string b = line(1, 3, "64K") + line(1, 3, "16K");
  const std::string merged = merge_sweep_results({{"a.jsonl", a}, {"b.jsonl", b}});
  // Policies in the order first named (16K, 64K); points ascending.
  CHECK(merged == line(0, 3, "16K") + line(0, 3, "64K") + line(1, 3, "16K") + line(1, 3, "64K") + line(2, 3, "16K") +
                      line(2, 3, "64K"));
}

TEST_CASE("merging refuses what is not one whole sweep") {
  auto error = [](const std::vector<std::pair<std::string, std::string>>& files) {
    try {
      merge_sweep_results(files);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  CHECK(error({{"a.jsonl", line(0, 2, "16K")}}).find("1 of 2 points have no result") != std::string::npos);
  CHECK(error({{"a.jsonl", line(0, 1, "16K")}, {"b.jsonl", line(0, 1, "16K")}}).find("b.jsonl:1: point 0, policy 16K "
                                                                                       "appears twice") !=
        std::string::npos);
  CHECK(error({{"a.jsonl", line(0, 2, "16K")}, {"b.jsonl", line(1, 3, "16K")}}).find("b.jsonl:1: this line's sweep") !=
        std::string::npos);
  // Shards of two sweeps of one scenario and one key, over other values; of two scenarios.
  CHECK(error({{"a.jsonl", line(0, 2, "16K")}, {"b.jsonl", line(1, 2, "16K", "[0,4]")}}).find("b.jsonl:1: this line's sweep") !=
        std::string::npos);
  CHECK(error({{"a.jsonl", line(0, 2, "16K")}, {"b.jsonl", line(1, 2, "16K", "[0,8]", "t")}}).find("b.jsonl:1: this line's sweep") !=
        std::string::npos);
  CHECK(error({{"a.jsonl", "{\"wall_s\": 1}\n"}}).find("a.jsonl:1: expected a sweep result line") != std::string::npos);
  CHECK(error({{"a.jsonl", "not json\n"}}).find("a.jsonl:1:") != std::string::npos);
  CHECK(error({{"a.jsonl", ""}}).find("no sweep result lines") != std::string::npos);
  // A point with only some of the policies another point has: a shard cut short.
  CHECK(error({{"a.jsonl", line(0, 2, "16K") + line(0, 2, "64K") + line(1, 2, "16K")}}).find("1 of 2 points") !=
        std::string::npos);
}

}  // namespace
}  // namespace exsim
