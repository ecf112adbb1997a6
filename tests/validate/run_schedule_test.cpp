#include <doctest/doctest.h>

#include <chrono>

#include "validate/run_schedule.h"

namespace exsim::validate {
namespace {

using std::chrono::seconds;

// Runs a round, recording each policy's run as steady unless `unsteady` says
// otherwise; returns how many ran.
template <typename Unsteady>
std::size_t run_round(RunSchedule& schedule, seconds elapsed, Unsteady unsteady) {
  const auto round = schedule.next_round(elapsed);
  for (const PolicyIndex& index : round) schedule.record(index, RunResult{}, !unsteady(index));
  return round.size();
}

TEST_CASE("a steady machine: every policy runs once a round, for `repeat` rounds, then nothing") {
  RunSchedule schedule({2, 1}, 3, seconds(0));
  for (int round = 0; round < 3; ++round) {
    CHECK(run_round(schedule, seconds(10 * round), [](PolicyIndex) { return false; }) == 3);
    CHECK(schedule.round() == round);
  }
  CHECK(schedule.next_round(seconds(30)).empty());
  CHECK_FALSE(schedule.stopped_by_time_limit());
  CHECK(schedule.runs({0, 1}).steady.size() == 3);
  CHECK(schedule.runs({1, 0}).tries == 3);
  CHECK_FALSE(schedule.short_of_runs({0, 0}));
}

TEST_CASE("a run set aside is made again alone in a later round") {
  RunSchedule schedule({3}, 3, seconds(0));
  // Round 1: policy 1 ran on a busy machine.
  CHECK(run_round(schedule, seconds(0), [](PolicyIndex i) { return i.policy == 1; }) == 3);
  CHECK(run_round(schedule, seconds(1), [](PolicyIndex) { return false; }) == 3);
  CHECK(run_round(schedule, seconds(2), [](PolicyIndex) { return false; }) == 3);
  const auto again = schedule.next_round(seconds(3));
  REQUIRE(again.size() == 1);
  CHECK(again[0].policy == 1);
  schedule.record(again[0], RunResult{}, true);
  CHECK(schedule.runs({0, 1}).steady.size() == 3);
  CHECK(schedule.runs({0, 1}).set_aside.size() == 1);
  CHECK(schedule.runs({0, 1}).steady.back().round == 3);
  CHECK(schedule.next_round(seconds(4)).empty());
}

TEST_CASE("a policy gets at most kTriesPerRun x repeat tries, then is left short") {
  RunSchedule schedule({2}, 2, seconds(0));
  int rounds = 0;
  while (run_round(schedule, seconds(rounds), [](PolicyIndex i) { return i.policy == 0; }) > 0) ++rounds;
  CHECK(rounds == kTriesPerRun * 2);
  CHECK(schedule.runs({0, 0}).tries == kTriesPerRun * 2);
  CHECK(schedule.runs({0, 0}).set_aside.size() == static_cast<std::size_t>(kTriesPerRun * 2));
  CHECK(schedule.short_of_runs({0, 0}));
  CHECK(schedule.runs({0, 1}).tries == 2);  // the steady policy stopped at its two runs
  CHECK_FALSE(schedule.short_of_runs({0, 1}));
}

TEST_CASE("the time limit stops the runs made again, never the first `repeat` rounds") {
  RunSchedule schedule({1}, 3, seconds(100));
  const auto busy = [](PolicyIndex) { return true; };
  // Past the limit already, the first three rounds still run.
  CHECK(run_round(schedule, seconds(200), busy) == 1);
  CHECK(run_round(schedule, seconds(300), busy) == 1);
  CHECK(run_round(schedule, seconds(400), busy) == 1);
  CHECK(schedule.next_round(seconds(500)).empty());
  CHECK(schedule.stopped_by_time_limit());
  CHECK(schedule.short_of_runs({0, 0}));

  RunSchedule before_limit({1}, 3, seconds(100));
  for (int round = 0; round < 3; ++round) CHECK(run_round(before_limit, seconds(round), busy) == 1);
  CHECK(run_round(before_limit, seconds(99), busy) == 1);  // a fourth round, still within it
  CHECK(before_limit.next_round(seconds(100)).empty());
  CHECK(before_limit.stopped_by_time_limit());
}

TEST_CASE("a majority of the steady runs asked gets a verdict when the time limit leaves a policy short") {
  CHECK(steady_runs_for_verdict(1) == 1);
  CHECK(steady_runs_for_verdict(2) == 2);
  CHECK(steady_runs_for_verdict(3) == 2);
  CHECK(steady_runs_for_verdict(5) == 3);
  RunSchedule schedule({3}, 3, seconds(100));
  // Policy 1 is disturbed in one round, policy 2 in two; every later try too.
  int round = 0;
  const auto disturbed = [&](PolicyIndex i) { return (i.policy == 1 && round == 0) || (i.policy == 2 && round != 1); };
  for (; run_round(schedule, seconds(60 * round), disturbed) > 0; ++round) {
  }
  CHECK(schedule.stopped_by_time_limit());
  CHECK_FALSE(schedule.short_of_runs({0, 0}));
  CHECK(schedule.judgeable({0, 0}));
  CHECK(schedule.short_of_runs({0, 1}));  // 2 of 3: judged on those
  CHECK(schedule.judgeable({0, 1}));
  CHECK(schedule.runs({0, 1}).steady.size() == 2);
  CHECK_FALSE(schedule.judgeable({0, 2}));  // 1 of 3: no verdict of its own
  CHECK(schedule.runs({0, 2}).steady.size() == 1);
}

TEST_CASE("a round whose costs did not hold has its steady runs set aside and made again") {
  RunSchedule schedule({2}, 1, seconds(0));
  CHECK(run_round(schedule, seconds(0), [](PolicyIndex i) { return i.policy == 1; }) == 2);
  CHECK(schedule.set_aside_round(0) == 1);  // policy 0's steady run; policy 1's was already aside
  CHECK(schedule.runs({0, 0}).steady.empty());
  CHECK(schedule.runs({0, 0}).set_aside.size() == 1);
  CHECK(run_round(schedule, seconds(1), [](PolicyIndex) { return false; }) == 2);
  CHECK(schedule.runs({0, 0}).steady.at(0).round == 1);
  CHECK(schedule.set_aside_round(0) == 0);  // nothing steady is left from round 0
  CHECK(schedule.next_round(seconds(2)).empty());
}

}  // namespace
}  // namespace exsim::validate
