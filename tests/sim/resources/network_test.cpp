// NICs shared max-min fairly, completions settled lazily, and the earliest
// completion found from a tree: against hand-derived times, the definition of
// max-min fairness, and each other.
#include <doctest/doctest.h>

#include <algorithm>
#include <limits>
#include <utility>
#include <vector>

#include "models/base/random.h"
#include "sim/resources/min_tree.h"
#include "sim/resources/network.h"
#include "tests/sim/sim_test_util.h"

namespace exsim::sim {
namespace {

using test::Action;
using test::Recorder;

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
  // on which no connection goes faster than it. Connections of 2-17 hosts at
  // random, many sharing NICs, with exact ties (equal degrees) among them; past
  // 16 busy NICs the bottleneck is found by four running minima.
  Random random(5);
  for (int trial = 0; trial < 300; ++trial) {
    CAPTURE(trial);
    const int hosts = 2 + static_cast<int>(random.below(16));
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

struct TimedSend {
  SimTime at;
  int from, to;
  double bytes;
};

// Random sends over `hosts`, a third of them at the same instant as the one before.
std::vector<TimedSend> random_sends(Random& random, int hosts, std::uint64_t count, SimTime max_gap,
                                    std::uint64_t max_bytes) {
  std::vector<TimedSend> sends;
  SimTime t = 0;
  for (std::uint64_t i = 0; i < count; ++i) {
    if (random.below(3) != 0) t += static_cast<SimTime>(random.below(static_cast<std::uint64_t>(max_gap)));
    const int from = static_cast<int>(random.below(static_cast<std::uint64_t>(hosts)));
    const int to = (from + 1 + static_cast<int>(random.below(static_cast<std::uint64_t>(hosts - 1)))) % hosts;
    sends.push_back({t, from, to, static_cast<double>(1 + random.below(max_bytes))});
  }
  return sends;
}

TEST_CASE("settling completions lazily changes no delivery, only the events it takes") {
  // The same random sends twice, some in bursts at one instant: with no
  // delivery delays, every completion is settled by an event at its own time;
  // with delays of 10-500 us, almost none is. Each delivery must come exactly
  // its pair's delay later.
  constexpr int kHosts = 5;
  constexpr std::uint64_t kSends = 3000;
  Random random(11);
  const std::vector<TimedSend> sends = random_sends(random, kHosts, kSends, 4500, 20000);
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

// (time, send) of every delivery, in the order delivered, with the earliest
// completion found again by a scan up to `scan_limit` busy connections.
std::vector<std::pair<SimTime, std::uint64_t>> deliveries(int hosts, const std::vector<TimedSend>& sends,
                                                          std::size_t scan_limit) {
  Simulator simulator;
  Network network(simulator, hosts, 2.0, scan_limit);
  for (int from = 0; from < hosts; ++from) {
    for (int to = 0; to < hosts; ++to) {
      if (from != to) network.set_delivery_delay(from, to, 10000 + 1000 * ((from + to) % 7));
    }
  }
  Recorder f(simulator);
  Action send([&](std::uint64_t i) { network.send(sends[i].from, sends[i].to, sends[i].bytes, &f, i); });
  for (std::size_t i = 0; i < sends.size(); ++i) simulator.at(sends[i].at, &send, i);
  simulator.run();
  REQUIRE(f.seen.size() == sends.size());
  return f.seen;
}

TEST_CASE("the earliest completion found from a tree is the one a scan finds") {
  constexpr std::size_t kAlwaysScan = std::numeric_limits<std::size_t>::max();
  Random random(17);
  SUBCASE("12 hosts, every connection busy at the start: past the scan limit, then below it") {
    constexpr int kHosts = 12;
    std::vector<TimedSend> sends;
    for (int from = 0; from < kHosts; ++from) {
      for (int to = 0; to < kHosts; ++to) {
        if (from != to) sends.push_back({0, from, to, static_cast<double>(1 + random.below(50000))});
      }
    }
    for (const TimedSend& send : random_sends(random, kHosts, 3000, 300, 20000)) sends.push_back(send);
    const auto scanned = deliveries(kHosts, sends, kAlwaysScan);
    CHECK(deliveries(kHosts, sends, 0) == scanned);  // the tree alone
    CHECK(deliveries(kHosts, sends, Network::kScanLimit) == scanned);
  }
  SUBCASE("5 hosts, the busy count crossing a low limit again and again") {
    // Finish times that move while the scan is in use must still reach the
    // tree when it is next used.
    constexpr int kHosts = 5;
    const std::vector<TimedSend> sends = random_sends(random, kHosts, 3000, 4500, 20000);
    const auto scanned = deliveries(kHosts, sends, kAlwaysScan);
    for (const std::size_t limit : {0, 1, 2, 3, 4, 6}) {
      CAPTURE(limit);
      CHECK(deliveries(kHosts, sends, limit) == scanned);
    }
  }
}

TEST_CASE("busy NICs take part in the same order whether listed by a scan or kept as connections come and go") {
  // Progressive filling breaks ties between NICs' shares by that order, and at
  // a capacity whose quotients round (0.3) another order moves rates in the
  // last bit. So the rates of every pair, compared exactly at checkpoints
  // through random traffic over 14 hosts, with connections coming and going,
  // agree.
  constexpr int kHosts = 14;
  Random random(23);
  const std::vector<TimedSend> sends = random_sends(random, kHosts, 4000, 3000, 20000);
  auto rates = [&](std::size_t scan_limit) {
    Simulator simulator;
    Network network(simulator, kHosts, 0.3, scan_limit);
    Recorder f(simulator);
    std::vector<double> seen;
    Action send([&](std::uint64_t i) { network.send(sends[i].from, sends[i].to, sends[i].bytes, &f, i); });
    Action look([&](std::uint64_t) {
      for (int from = 0; from < kHosts; ++from) {
        for (int to = 0; to < kHosts; ++to) {
          if (from != to) seen.push_back(network.rate(from, to));
        }
      }
    });
    for (std::size_t i = 0; i < sends.size(); ++i) {
      simulator.at(sends[i].at, &send, i);
      if (i % 10 == 0) simulator.at(sends[i].at + 75, &look, 0);
    }
    simulator.run();
    return seen;
  };
  const auto scanned = rates(std::numeric_limits<std::size_t>::max());
  CHECK(std::count_if(scanned.begin(), scanned.end(), [](double rate) { return rate > 0; }) > 1000);
  CHECK(rates(0) == scanned);
}

TEST_CASE("stars of busy connections get capacity / k exactly, as progressive filling gives") {
  // Host 0 sends to k others (its outbound NIC the centre), host k+1 sends to
  // one more host alone: capacity / k for the star, the whole capacity for
  // the lone connection, compared exactly (capacities whose quotients round).
  for (const double capacity : {1.25, 0.3, 3.7}) {
    for (const int k : {2, 3, 5, 6, 7}) {
      CAPTURE(capacity);
      CAPTURE(k);
      Simulator simulator;
      Network network(simulator, k + 3, capacity);
      Recorder f(simulator);
      for (int to = 1; to <= k; ++to) network.send(0, to, 1e9, &f, static_cast<std::uint64_t>(to));
      network.send(k + 1, k + 2, 1e9, &f, 0);
      for (int to = 1; to <= k; ++to) CHECK(network.rate(0, to) == capacity / k);
      CHECK(network.rate(k + 1, k + 2) == capacity);
    }
  }
}

}  // namespace
}  // namespace exsim::sim
