// CPU run queues and NIC max-min sharing, against hand-derived times.
#include <doctest/doctest.h>

#include <algorithm>
#include <limits>
#include <utility>
#include <vector>

#include "models/random.h"
#include "sim/resources/cpu_pool.h"
#include "sim/resources/min_tree.h"
#include "sim/resources/network.h"
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

TEST_CASE("a lone transfer gets the whole NIC and is delivered the pair's delay after its last byte") {
  for (SimTime delay : {SimTime{0}, SimTime{50000}}) {
    CAPTURE(delay);
    Simulator simulator;
    Network network(simulator, 2, 1.0);  // 1 byte per ns
    network.set_delivery_delay(0, 1, delay);
    Recorder f(simulator);
    network.send(0, 1, 10000, &f, 1);
    simulator.run();
    CHECK(f.at[1] == 10000 + delay);
  }
}

TEST_CASE("transfers on one connection leave in order, one after the other") {
  Simulator simulator;
  Network network(simulator, 2, 1.0);
  Recorder f(simulator);
  network.send(0, 1, 3000, &f, 1);
  network.send(0, 1, 1000, &f, 2);
  simulator.run();
  CHECK(f.at[1] == 3000);
  CHECK(f.at[2] == 4000);
}

TEST_CASE("two senders into one host share its inbound NIC equally") {
  Simulator simulator;
  Network network(simulator, 3, 1.0);
  Recorder f(simulator);
  network.send(0, 2, 10000, &f, 1);
  network.send(1, 2, 10000, &f, 2);
  simulator.run();
  CHECK(f.at[1] == 20000);
  CHECK(f.at[2] == 20000);
}

TEST_CASE("max-min fairness gives unused share to the connection that can use it") {
  // A: 0->2, B: 0->3, C: 1->3, D: 4->3. Host 3's inbound NIC is the bottleneck:
  // B, C, D get 1/3 each. A shares host 0's outbound NIC with B only, so max-min
  // gives A the remaining 2/3 (an equal split of host 0's NIC would give 1/2).
  Simulator simulator;
  Network network(simulator, 5, 1.0);
  Recorder f(simulator);
  network.send(0, 2, 1e6, &f, 1);
  network.send(0, 3, 1e6, &f, 2);
  network.send(1, 3, 1e6, &f, 3);
  network.send(4, 3, 1e6, &f, 4);
  CHECK(network.rate(0, 2) == doctest::Approx(2.0 / 3));
  CHECK(network.rate(0, 3) == doctest::Approx(1.0 / 3));
  CHECK(network.rate(1, 3) == doctest::Approx(1.0 / 3));
  CHECK(network.rate(4, 3) == doctest::Approx(1.0 / 3));
  simulator.run();
  // A: 1e6 at 2/3 -> 1.5e6 ns. Then B, C, D at 1/3 until 3e6 (they had 1e6 each).
  CHECK(f.at[1] == doctest::Approx(1.5e6).epsilon(1e-6));
  CHECK(f.at[2] == doctest::Approx(3e6).epsilon(1e-6));
  CHECK(network.rate(0, 2) == 0);
}

TEST_CASE("random sets of connections get max-min fair rates, by the definition") {
  // Max-min fairness, checked by its definition rather than by an algorithm:
  // no NIC is over capacity, and every connection has a bottleneck, a full NIC
  // on which no connection goes faster than it. Connections of 2-9 hosts at
  // random, many sharing NICs, with exact ties (equal degrees) among them.
  Random random(5);
  for (int trial = 0; trial < 300; ++trial) {
    CAPTURE(trial);
    const int hosts = 2 + static_cast<int>(random.below(8));
    const double capacity = 1.0 + static_cast<double>(random.below(3));
    Simulator simulator;
    Network network(simulator, hosts, capacity);
    Recorder f(simulator);
    std::vector<std::pair<int, int>> pairs;
    for (int from = 0; from < hosts; ++from) {
      for (int to = 0; to < hosts; ++to) {
        if (from != to && random.below(3) == 0) pairs.emplace_back(from, to);
      }
    }
    for (std::size_t i = 0; i < pairs.size(); ++i) network.send(pairs[i].first, pairs[i].second, 1e9, &f, i);
    std::vector<double> rate, out_sum(hosts, 0.0), in_sum(hosts, 0.0), out_max(hosts, 0.0), in_max(hosts, 0.0);
    for (const auto& [from, to] : pairs) {
      rate.push_back(network.rate(from, to));
      out_sum[from] += rate.back();
      in_sum[to] += rate.back();
      out_max[from] = std::max(out_max[from], rate.back());
      in_max[to] = std::max(in_max[to], rate.back());
    }
    constexpr double kEps = 1e-9;
    for (int h = 0; h < hosts; ++h) {
      CHECK(out_sum[h] <= capacity * (1 + kEps));
      CHECK(in_sum[h] <= capacity * (1 + kEps));
    }
    for (std::size_t i = 0; i < pairs.size(); ++i) {
      const auto [from, to] = pairs[i];
      CHECK(rate[i] > 0);
      const bool out_bottleneck = out_sum[from] >= capacity * (1 - kEps) && rate[i] >= out_max[from] * (1 - kEps);
      const bool in_bottleneck = in_sum[to] >= capacity * (1 - kEps) && rate[i] >= in_max[to] * (1 - kEps);
      CHECK((out_bottleneck || in_bottleneck));
    }
  }
}

TEST_CASE("a rate change mid-transfer keeps the bytes already sent") {
  // 0->1 alone at 1 B/ns for 4000 ns (4000 B sent), then 2->1 joins: both at 0.5.
  // The first has 6000 B left: 12000 ns more, done at 16000.
  Simulator simulator;
  Network network(simulator, 3, 1.0);
  Recorder f(simulator);
  Action later([&](std::uint64_t) { network.send(2, 1, 6000, &f, 2); });
  network.send(0, 1, 10000, &f, 1);
  simulator.at(4000, &later, 0);
  simulator.run();
  CHECK(f.at[1] == 16000);
  CHECK(f.at[2] == 16000);
}

TEST_CASE("a completion nobody has seen yet still frees its NIC for the next send") {
  // 0->1 (10000 B) ends at 10000 ns, to be delivered at 210000. At 12000, 0->2
  // starts on the same outbound NIC: the first is gone, so it gets all of it.
  // Every pair's delay is 200 us, so no event settles the first completion
  // before the send does (the backstop is due at 210000).
  Simulator simulator;
  Network network(simulator, 3, 1.0);
  for (int from = 0; from < 3; ++from) {
    for (int to = 0; to < 3; ++to) {
      if (from != to) network.set_delivery_delay(from, to, 200000);
    }
  }
  Recorder f(simulator);
  Action later([&](std::uint64_t) {
    network.send(0, 2, 5000, &f, 2);
    CHECK(network.rate(0, 1) == 0);
    CHECK(network.rate(0, 2) == 1.0);
  });
  network.send(0, 1, 10000, &f, 1);
  simulator.at(12000, &later, 0);
  simulator.run();
  CHECK(f.at[1] == 210000);
  CHECK(f.at[2] == 12000 + 5000 + 200000);
  // Four events: the second send; the backstop at 210000 (settling 0->2's
  // completion at 17000); the delay line's two deliveries. Settled eagerly,
  // the first completion would have taken a fifth, at 10000.
  CHECK(simulator.events_processed() == 4);
}

TEST_CASE("settling completions lazily changes no delivery, only the events it takes") {
  // The same random sends twice, some in bursts at one instant: with no
  // delivery delays, every completion is settled by an event at its own time;
  // with delays of 10-500 us, almost none is. Each delivery must come exactly
  // its pair's delay later.
  constexpr int kHosts = 5;
  constexpr std::uint64_t kSends = 3000;
  Random random(11);
  struct Send {
    SimTime at;
    int from, to;
    double bytes;
  };
  std::vector<Send> sends;
  SimTime t = 0;
  for (std::uint64_t i = 0; i < kSends; ++i) {
    // A third of the sends come at the same instant as the one before (bursts).
    if (random.below(3) != 0) t += static_cast<SimTime>(random.below(4500));
    const int from = static_cast<int>(random.below(kHosts));
    const int to = (from + 1 + static_cast<int>(random.below(kHosts - 1))) % kHosts;
    sends.push_back({t, from, to, static_cast<double>(1 + random.below(20000))});
  }
  std::vector<SimTime> delay(kHosts * kHosts, 0);
  for (auto& d : delay) d = static_cast<SimTime>(10000 + random.below(490000));
  auto deliveries = [&](bool delayed, std::uint64_t* events) {
    Simulator simulator;
    Network network(simulator, kHosts, 2.0);
    for (int from = 0; from < kHosts; ++from) {
      for (int to = 0; to < kHosts; ++to) {
        if (from != to && delayed) network.set_delivery_delay(from, to, delay[from * kHosts + to]);
      }
    }
    Recorder f(simulator);
    Action send([&](std::uint64_t i) { network.send(sends[i].from, sends[i].to, sends[i].bytes, &f, i); });
    for (std::uint64_t i = 0; i < kSends; ++i) simulator.at(sends[i].at, &send, i);
    simulator.run();
    *events = simulator.events_processed();
    return f.at;
  };
  std::uint64_t eager_events = 0, lazy_events = 0;
  const auto eager = deliveries(false, &eager_events);
  const auto lazy = deliveries(true, &lazy_events);
  REQUIRE(eager.size() == kSends);
  REQUIRE(lazy.size() == kSends);
  for (std::uint64_t i = 0; i < kSends; ++i) {
    CAPTURE(i);
    REQUIRE(lazy.at(i) == eager.at(i) + delay[sends[i].from * kHosts + sends[i].to]);
  }
  // Eager: the sends, one event per completion (or more) and the deliveries.
  // Lazy: sends and deliveries (a burst's in one), and a backstop now and then.
  CHECK(eager_events >= 3 * kSends);
  CHECK(lazy_events < 2 * kSends + kSends / 5);
}

TEST_CASE("a min tree's top is the smallest key, the lowest slot among equals, as a scan finds") {
  Random random(3);
  for (const int slots : {1, 2, 3, 5, 25, 64, 100}) {
    CAPTURE(slots);
    MinTree tree(slots);
    std::vector<std::int64_t> keys(static_cast<std::size_t>(slots), MinTree::kNone);
    CHECK(tree.top().key == MinTree::kNone);
    for (int step = 0; step < 2000; ++step) {
      const int slot = static_cast<int>(random.below(static_cast<std::uint64_t>(slots)));
      // Few distinct keys, so ties are common; now and then back to none.
      const std::int64_t key = random.below(8) == 0 ? MinTree::kNone : static_cast<std::int64_t>(random.below(6));
      tree.set(slot, key);
      keys[static_cast<std::size_t>(slot)] = key;
      const auto first = std::min_element(keys.begin(), keys.end());  // the first of the smallest
      REQUIRE(tree.top().key == *first);
      if (*first != MinTree::kNone) REQUIRE(tree.top().slot == first - keys.begin());
    }
  }
}

TEST_CASE("with many busy connections, the earliest completion found from a tree is the one a scan finds") {
  // 12 hosts, every ordered pair busy at once (132 connections, past the scan
  // limit), then random sends in bursts: every delivery must be the same
  // whichever way the network finds its next completion.
  constexpr int kHosts = 12;
  Random random(17);
  struct Send {
    SimTime at;
    int from, to;
    double bytes;
  };
  std::vector<Send> sends;
  for (int from = 0; from < kHosts; ++from) {
    for (int to = 0; to < kHosts; ++to) {
      if (from != to) sends.push_back({0, from, to, static_cast<double>(1 + random.below(50000))});
    }
  }
  SimTime t = 0;
  for (int i = 0; i < 3000; ++i) {
    if (random.below(3) != 0) t += static_cast<SimTime>(random.below(300));
    const int from = static_cast<int>(random.below(kHosts));
    const int to = (from + 1 + static_cast<int>(random.below(kHosts - 1))) % kHosts;
    sends.push_back({t, from, to, static_cast<double>(1 + random.below(20000))});
  }
  auto deliveries = [&](std::size_t scan_limit) {
    Simulator simulator;
    Network network(simulator, kHosts, 2.0, scan_limit);
    for (int from = 0; from < kHosts; ++from) {
      for (int to = 0; to < kHosts; ++to) {
        if (from != to) network.set_delivery_delay(from, to, 10000 + 1000 * ((from + to) % 7));
      }
    }
    Recorder f(simulator);
    Action send([&](std::uint64_t i) { network.send(sends[i].from, sends[i].to, sends[i].bytes, &f, i); });
    for (std::size_t i = 0; i < sends.size(); ++i) simulator.at(sends[i].at, &send, i);
    simulator.run();
    return f.seen;  // (time, send) in the order delivered
  };
  const auto scanned = deliveries(std::numeric_limits<std::size_t>::max());
  const auto from_tree = deliveries(0);
  const auto mixed = deliveries(Network::kScanLimit);
  REQUIRE(scanned.size() == sends.size());
  CHECK(from_tree == scanned);
  CHECK(mixed == scanned);
}

}  // namespace
}  // namespace exsim::sim
