// CPU run queues, against hand-derived times.
#include <doctest/doctest.h>

#include <algorithm>
#include <utility>
#include <vector>

#include "models/base/random.h"
#include "sim/resources/cpu_pool.h"
#include "tests/sim/sim_test_util.h"

namespace exsim::sim {
namespace {

using test::Action;
using test::Recorder;

// Steps of (queued at, work) ns on a pool of `cores`; returns when each ends.
std::vector<SimTime> step_ends(int cores, std::vector<std::pair<SimTime, SimTime>> steps,
                               SimTime slice = CpuPool::kDefaultSlice) {
  Simulator simulator;
  CpuPool pool(simulator, cores, slice);
  Recorder done(simulator);
  Action queue([&](std::uint64_t i) { pool.start(steps[i].second, &done, i); });
  for (std::size_t i = 0; i < steps.size(); ++i) simulator.at(steps[i].first, &queue, i);
  simulator.run();
  std::vector<SimTime> ends;
  for (std::size_t i = 0; i < steps.size(); ++i) ends.push_back(done.at[i]);
  return ends;
}

TEST_CASE("a thread never runs faster than one core") {
  Simulator simulator;
  CpuPool pool(simulator, 4);
  Recorder f(simulator);
  CHECK(pool.start(1000, &f, 1) == 0);  // starts at once on an idle core
  simulator.run();
  CHECK(f.at[1] == 1000);
}

TEST_CASE("three steps on two cores: the third waits for the first free core") {
  CHECK(step_ends(2, {{0, 1000}, {0, 1000}, {0, 1000}}) == std::vector<SimTime>{1000, 1000, 2000});
}

TEST_CASE("waiting steps take the cores in the order they were queued") {
  // One core. A (1000 ns) at 0; B (300 ns) at 200 and C (100 ns) at 400 wait:
  // B runs 1000-1300, C 1300-1400, though C is shorter.
  CHECK(step_ends(1, {{0, 1000}, {200, 300}, {400, 100}}) == std::vector<SimTime>{1000, 1300, 1400});
}

TEST_CASE("a step longer than a slice goes to the back of the queue after each slice") {
  // One core, slice 1000. A (2500 ns) at 0 runs 0-1000; B (500 ns), queued at 100,
  // runs 1000-1500; A's rest runs 1500-2500 and, alone, 2500-3000.
  CHECK(step_ends(1, {{0, 2500}, {100, 500}}, 1000) == std::vector<SimTime>{3000, 1500});
}

TEST_CASE("slices take turns on several cores, and a step learns when it starts") {
  // Two cores, slice 1000: A and B (2500 ns each) start at 0. C (500 ns), queued
  // at 100, gets the first core free: 1000-1500. At 1000 A's rest queues first
  // and gets the other core, 1000-2000; B's rest waits for C: 1500-2500. A's last
  // 500 ns run 2000-2500, B's 2500-3000.
  CHECK(step_ends(2, {{0, 2500}, {0, 2500}, {100, 500}}, 1000) == std::vector<SimTime>{2500, 3000, 1500});
  // A step of exactly one slice runs once, without coming back.
  CHECK(step_ends(1, {{0, 1000}, {0, 1000}}, 1000) == std::vector<SimTime>{1000, 2000});
  Simulator simulator;
  CpuPool pool(simulator, 1);
  Recorder f(simulator);
  CHECK(pool.start(700, &f, 1) == 0);
  CHECK(pool.start(300, &f, 2) == 700);  // starts when the core is free
}

TEST_CASE("an idle core waits for no one: work is conserved") {
  // Two cores, ten 1000-ns steps at once: five rounds of two, the last ending at 5000.
  const std::vector<SimTime> ends = step_ends(2, std::vector<std::pair<SimTime, SimTime>>(10, {0, 1000}));
  for (std::size_t i = 0; i < ends.size(); ++i) CHECK(ends[i] == 1000 * static_cast<SimTime>(i / 2 + 1));
}

TEST_CASE("any number of cores: each step starts on the earliest free core") {
  // Against the plainest statement of the rule, a scan of every core's free
  // time, for heaps of every shape up to 17 cores (odd and even, full and not).
  Random random(11);
  for (int cores = 1; cores <= 17; ++cores) {
    Simulator simulator;
    CpuPool pool(simulator, cores);
    Recorder done(simulator);
    std::vector<SimTime> free_at(static_cast<std::size_t>(cores), 0);
    for (std::uint64_t i = 0; i < 200; ++i) {
      const auto work = static_cast<SimTime>(1 + random.below(5000));
      auto earliest = std::min_element(free_at.begin(), free_at.end());
      const SimTime begin = pool.start(work, &done, i);
      CHECK(begin == *earliest);
      *earliest = begin + work;
    }
  }
}

TEST_CASE("a yielding step lets a step that comes meanwhile in at its next slice's end") {
  // One core: a CPU-bound step of 1000 ns yielding every 100 ns from 0, and a
  // step of 50 ns asked for at 130. The second runs at 200, when the first's
  // second slice ends (not at 1000), and sets the first back by its 50 ns.
  Simulator simulator;
  CpuPool pool(simulator, 1);
  Recorder done(simulator);
  Action hog([&](std::uint64_t) { pool.start_yielding(1000, 100, &done, 0); });
  Action woken([&](std::uint64_t) { CHECK(pool.start(50, &done, 1) == 200); });
  simulator.at(0, &hog, 0);
  simulator.at(130, &woken, 0);
  simulator.run();
  CHECK(done.at[1] == 250);
  CHECK(done.at[0] == 1050);
  // Without yielding, the same step waits for the whole of the first.
  CHECK(step_ends(1, {{0, 1000}, {130, 50}}) == std::vector<SimTime>{1000, 1050});
}

TEST_CASE("run takes a core as start does, and schedules nothing") {
  // Two pools fed the same steps, one by start, one by run: the same ends; the
  // second leaves no event behind.
  Simulator with_events, without;
  CpuPool a(with_events, 3), b(without, 3);
  Recorder done(with_events);
  Random random(4);
  for (std::uint64_t i = 0; i < 50; ++i) {
    const auto work = static_cast<SimTime>(1 + random.below(5000));
    const SimTime begin = a.start(work, &done, i);
    CHECK(b.run(work) == begin + work);
  }
  CHECK(without.pending() == 0);
  with_events.run();
  CHECK(done.at.size() == 50);
}

}  // namespace
}  // namespace exsim::sim
