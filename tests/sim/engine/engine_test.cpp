// The engine's contract, run against every scheduler: time order, scheduling
// order for ties, the calendar queue against the heap, no event in the past,
// and delay lines releasing in order.
#include <doctest/doctest.h>

#include <limits>
#include <vector>

#include "models/base/random.h"
#include "sim/engine/calendar_scheduler.h"
#include "sim/engine/delay_line.h"
#include "sim/engine/simulator.h"
#include "tests/sim/sim_test_util.h"

namespace exsim::sim {
namespace {

using test::Action;
using test::Recorder;

TEST_CASE("every scheduler runs events by time, then in scheduling order") {
  for (const char* name : {"calendar", "quad-heap", "binary-heap"}) {
    CAPTURE(name);
    Simulator simulator(make_scheduler(name));
    Recorder r(simulator);
    // Times out of order, ties at 50 in order 1, 2, 3.
    simulator.at(100, &r, 9);
    simulator.at(50, &r, 1);
    simulator.at(70, &r, 5);
    simulator.at(50, &r, 2);
    simulator.at(0, &r, 0);
    simulator.at(50, &r, 3);
    for (int i = 0; i < 200; ++i) simulator.at(1000 + (i * 7919) % 500, &r, 100 + static_cast<std::uint64_t>(i));
    simulator.run();
    REQUIRE(r.seen.size() == 206);
    CHECK(r.seen[0] == std::pair<SimTime, std::uint64_t>{0, 0});
    CHECK(r.seen[1].second == 1);
    CHECK(r.seen[2].second == 2);
    CHECK(r.seen[3].second == 3);
    CHECK(r.seen[4].second == 5);
    CHECK(r.seen[5].second == 9);
    for (std::size_t i = 1; i < r.seen.size(); ++i) CHECK(r.seen[i - 1].first <= r.seen[i].first);
    CHECK(simulator.events_processed() == 206);
  }
}

TEST_CASE("run_for runs the events it is given and says whether any are left") {
  Simulator simulator;
  Recorder r(simulator);
  for (std::uint64_t i = 0; i < 5; ++i) simulator.at(static_cast<SimTime>(10 * i), &r, i);
  CHECK(simulator.run_for(2));
  CHECK(r.seen.size() == 2);
  CHECK(simulator.now() == 10);
  CHECK(simulator.run_for(0));
  CHECK(r.seen.size() == 2);
  CHECK_FALSE(simulator.run_for(3));
  CHECK(r.seen.size() == 5);
  CHECK_FALSE(simulator.run_for(std::numeric_limits<std::uint64_t>::max()));
}

TEST_CASE("the calendar queue pops exactly the heap's order, near, far and tied") {
  // Random pushes interleaved with pops, never before the last popped time, as a
  // simulator makes them: ties (same time), the current bucket, the wheel, past
  // the wheel's 4.2 ms reach (the far heap), and jumps over empty stretches.
  CalendarScheduler calendar;
  QuadHeapScheduler heap;
  Random random(11);
  std::uint64_t seq = 0;
  SimTime now = 0;
  auto push = [&](SimTime when) {
    const Event e{when, seq++, nullptr, seq};
    calendar.push(e);
    heap.push(e);
  };
  std::size_t popped = 0;
  for (int round = 0; round < 200000; ++round) {
    const std::uint64_t kind = random.below(10);
    const SimTime ahead = kind < 2   ? 0
                          : kind < 5 ? static_cast<SimTime>(random.below(2000))
                          : kind < 8 ? static_cast<SimTime>(random.below(4'000'000))
                          : kind < 9 ? static_cast<SimTime>(random.below(50'000'000))
                                     : static_cast<SimTime>(random.below(3'000'000'000ULL));
    push(now + ahead);
    if (random.below(100) < 48 || round % 50000 == 0) {
      // Drain a few, or all of them now and then.
      const std::size_t n = round % 50000 == 0 ? heap.size() : 1 + random.below(2);
      for (std::size_t i = 0; i < n && !heap.empty(); ++i) {
        REQUIRE(calendar.size() == heap.size());
        CHECK(calendar.top().seq == heap.top().seq);
        const Event a = calendar.pop();
        const Event b = heap.pop();
        REQUIRE(a.seq == b.seq);
        REQUIRE(a.time == b.time);
        now = a.time;
        ++popped;
      }
    }
  }
  while (!heap.empty()) {
    REQUIRE(calendar.pop().seq == heap.pop().seq);
    ++popped;
  }
  CHECK(calendar.empty());
  CHECK(popped == 200000);
}

TEST_CASE("the calendar queue takes an event earlier than the last one popped") {
  // Not something a simulator does, but the queue stays correct: it rebuilds.
  CalendarScheduler calendar;
  calendar.push({5'000'000, 0, nullptr, 0});
  calendar.push({9'000'000'000, 1, nullptr, 0});
  CHECK(calendar.pop().seq == 0);
  calendar.push({1000, 2, nullptr, 0});
  calendar.push({6'000'000, 3, nullptr, 0});
  CHECK(calendar.pop().seq == 2);
  CHECK(calendar.pop().seq == 3);
  CHECK(calendar.pop().seq == 1);
  CHECK(calendar.empty());
}

TEST_CASE("the calendar queue takes a crowd of events due at one time in scheduling order") {
  // 100000 events at the same time, pushed while others are popped, as a handler
  // that schedules many at(now) calls does: each is appended, none shifts the rest.
  CalendarScheduler calendar;
  std::uint64_t seq = 0;
  for (int i = 0; i < 50000; ++i) calendar.push({10'000'000, seq++, nullptr, 0});
  std::uint64_t expected = 0;
  for (int i = 0; i < 25000; ++i) REQUIRE(calendar.pop().seq == expected++);
  for (int i = 0; i < 50000; ++i) calendar.push({10'000'000, seq++, nullptr, 0});
  calendar.push({10'000'000 - 1, seq++, nullptr, 0});  // earlier in the same bucket: ahead of all
  CHECK(calendar.pop().seq == seq - 1);
  while (!calendar.empty()) REQUIRE(calendar.pop().seq == expected++);
  CHECK(expected == 100000);
}

TEST_CASE("the calendar queue keeps its order at the far end of time") {
  // Times near the largest SimTime (centuries of simulated time): nothing overflows.
  CalendarScheduler calendar;
  const SimTime end = std::numeric_limits<SimTime>::max();
  calendar.push({end - 5, 0, nullptr, 0});
  calendar.push({end - 1'000'000'000, 1, nullptr, 0});
  calendar.push({1000, 2, nullptr, 0});
  calendar.push({end, 3, nullptr, 0});
  CHECK(calendar.pop().seq == 2);
  CHECK(calendar.pop().seq == 1);
  calendar.push({end - 5, 4, nullptr, 0});  // a tie with an earlier one: after it
  CHECK(calendar.pop().seq == 0);
  CHECK(calendar.pop().seq == 4);
  CHECK(calendar.pop().seq == 3);
  CHECK(calendar.empty());
}

TEST_CASE("scheduling in the past is an internal error") {
  Simulator simulator;
  Recorder r(simulator);
  simulator.at(10, &r, 1);
  simulator.run();
  CHECK_THROWS_AS(simulator.at(5, &r, 2), std::logic_error);
}

TEST_CASE("a delay line releases each event after its delay, in order, with one pending event") {
  Simulator simulator;
  DelayLine line(simulator, 100);
  Recorder r(simulator);
  Action feeder([&](std::uint64_t tag) { line.schedule(&r, tag); });
  for (std::uint64_t i = 0; i < 5; ++i) simulator.at(static_cast<SimTime>(i * 30), &feeder, i);
  simulator.at(30, &feeder, 99);  // same entry time as tag 1: leaves right after it
  simulator.run();
  REQUIRE(r.seen.size() == 6);
  CHECK(r.seen[0] == std::pair<SimTime, std::uint64_t>{100, 0});
  CHECK(r.seen[1] == std::pair<SimTime, std::uint64_t>{130, 1});
  CHECK(r.seen[2] == std::pair<SimTime, std::uint64_t>{130, 99});
  CHECK(r.seen[5] == std::pair<SimTime, std::uint64_t>{220, 4});
  // 6 feeder events + one line event per distinct release time (100, 130, 160, 190, 220).
  CHECK(simulator.events_processed() == 11);
}

}  // namespace
}  // namespace exsim::sim
