// `exsim advise` in two steps: the advice from its search, then its judging
// over the costs' ranges, which the command prints after the advice.
#include <doctest/doctest.h>

#include <atomic>

#include "sim/simulate.h"
#include "tests/test_util.h"
#include "workflows/advice.h"

namespace exsim {
namespace {

// A latency-bound hash exchange among 4 hosts, 0.5 ms apart.
const char* kScenario = R"({"name": "advice", "seed": 3, "mt_dop": 1,
  "cluster": {"hosts": 4, "rtt_ms": {"same_group": 0.5}},
  "policies": {"16K": {"buffer": {"flat": "16K"}}},
  "workload": {"queries": [{"name": "q", "exchanges": [{"id": "x", "kind": "hash", "rows": 400000,
    "row": {"fixed_bytes": 24, "varlen_bytes": 16}, "lz4_ratio": 0.5}]}]}})";

}  // namespace

TEST_CASE("advise: the search's advice, then its judging, which runs what it counts and gives advise's verdict") {
  const Scenario s = test::scenario_from(kScenario);
  workflows::AdviceOptions options;
  options.search.budget = 8 * kMiB;
  options.search.jobs = 2;
  options.cost_spread = 0.2;  // every cost 20% either way
  const auto simulate_policy = [&](const Policy& p) { return simulate(s, p); };

  workflows::Advice advice = workflows::search_advice(s, s.policies[0], options, simulate_policy);
  REQUIRE(advice.outcome.best);
  CHECK(advice.verdict.fastest.empty());  // not judged yet
  const std::size_t runs = workflows::judging_simulations(s, advice, options);
  const std::size_t contenders = workflows::contenders(advice.outcome).size();
  CHECK(contenders == 4);
  CHECK(runs > 2 * contenders);  // both corners of each, and each cost alone at both ends

  std::atomic<std::size_t> judged = 0;
  workflows::judge_advice(s, advice, options, [&] { ++judged; });
  CHECK(judged == runs);
  const std::string pick = advice.outcome.candidates[*advice.outcome.best].policy.name;
  CHECK(advice.verdict.fastest == pick);
  CHECK(advice.verdict.policies == static_cast<int>(contenders));

  // advise is the two in turn: the same pick and the same verdict.
  const workflows::Advice whole = workflows::advise(s, s.policies[0], options, simulate_policy);
  CHECK(whole.outcome.candidates[*whole.outcome.best].policy.name == pick);
  CHECK(whole.verdict.words() == advice.verdict.words());

  // Not asked, or no pick: nothing to judge.
  workflows::AdviceOptions unjudged = options;
  unjudged.sensitivity = false;
  CHECK(workflows::judging_simulations(s, advice, unjudged) == 0);
  workflows::Advice none = advice;
  none.outcome.best.reset();
  CHECK(workflows::judging_simulations(s, none, options) == 0);
}

}  // namespace exsim
