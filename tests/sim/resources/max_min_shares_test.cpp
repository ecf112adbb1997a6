// The max-min solver on its own, without time: which changes need a working
// out, the rates it gives against hand-derived ones, a rate kept until
// committed, and the same rates whether busy NICs are listed by a scan or from
// positions kept as flows come and go.
#include <doctest/doctest.h>

#include <algorithm>
#include <vector>

#include "models/base/random.h"
#include "sim/resources/max_min_shares.h"

namespace exsim::sim {
namespace {

int flow(int from, int to, int hosts) { return from * hosts + to; }

// Works out and commits every change; returns how many rates changed.
std::size_t settle(MaxMinShares& shares) {
  const auto changed = shares.work_out();
  const std::vector<int> flows(changed.begin(), changed.end());
  for (int c : flows) shares.commit(c);
  return flows.size();
}

// A flow from one host to another comes (with odds of all but 1 in `comes_in`,
// or when none is busy) or a busy one goes, in both solvers alike; `busy`
// follows. A flow that is busy already, or within one host, changes nothing.
void come_or_go(MaxMinShares& a, MaxMinShares& b, int hosts, std::uint64_t comes_in, Random& random,
                std::vector<int>& busy) {
  if (busy.empty() || random.below(comes_in) != 0) {
    const int from = static_cast<int>(random.below(hosts)), to = static_cast<int>(random.below(hosts));
    const int c = flow(from, to, hosts);
    if (from == to || a.busy(c)) return;
    CHECK(a.add(c) == b.add(c));
    busy.push_back(c);
  } else {
    const std::size_t i = random.below(busy.size());
    CHECK(a.remove(busy[i]) == b.remove(busy[i]));
    busy.erase(busy.begin() + static_cast<std::ptrdiff_t>(i));
  }
}

TEST_CASE("a flow alone on its NICs takes the whole capacity at once; one that shares needs a working out") {
  MaxMinShares shares(3, 2.0, 64);
  CHECK(shares.add(flow(0, 1, 3)));  // alone
  CHECK(shares.rate(flow(0, 1, 3)) == 2.0);
  CHECK_FALSE(shares.add(flow(0, 2, 3)));  // shares host 0's outbound NIC
  CHECK(shares.rate(flow(0, 2, 3)) == 0);  // not known until worked out
  const auto changed = shares.work_out();
  CHECK(changed.size() == 2);
  CHECK(shares.rate(flow(0, 1, 3)) == 2.0);  // the old rate until committed
  for (int c : std::vector<int>(changed.begin(), changed.end())) shares.commit(c);
  CHECK(shares.rate(flow(0, 1, 3)) == 1.0);
  CHECK(shares.rate(flow(0, 2, 3)) == 1.0);
  CHECK(shares.remove(flow(0, 2, 3)));  // it shared a NIC: the other's rate changes
  CHECK_FALSE(shares.busy(flow(0, 2, 3)));
  CHECK(shares.rate(flow(0, 2, 3)) == 0);
  CHECK(settle(shares) == 1);
  CHECK(shares.rate(flow(0, 1, 3)) == 2.0);
  CHECK_FALSE(shares.remove(flow(0, 1, 3)));  // alone: nobody else's rate moves
  CHECK(shares.busy_flows().empty());
}

TEST_CASE("max-min rates: the bottleneck's flows fixed first, the rest given what is left") {
  // A: 0->2, B: 0->3, C: 1->3, D: 4->3. Host 3's inbound NIC is the bottleneck
  // (1/3 each for B, C, D); A takes what B leaves of host 0's outbound NIC: 2/3.
  constexpr int kHosts = 5;
  MaxMinShares shares(kHosts, 1.0, 64);
  for (auto [from, to] : {std::pair{0, 2}, {0, 3}, {1, 3}, {4, 3}}) shares.add(flow(from, to, kHosts));
  settle(shares);
  CHECK(shares.rate(flow(0, 2, kHosts)) == doctest::Approx(2.0 / 3));
  CHECK(shares.rate(flow(0, 3, kHosts)) == doctest::Approx(1.0 / 3));
  CHECK(shares.rate(flow(1, 3, kHosts)) == doctest::Approx(1.0 / 3));
  CHECK(shares.rate(flow(4, 3, kHosts)) == doctest::Approx(1.0 / 3));
}

TEST_CASE("the busy NICs listed by a scan or from kept positions give the same rates, bit for bit") {
  // Flows come and go at random; one solver lists the busy NICs by a scan
  // (limit above any count), the other from positions kept (limit 0). Ties
  // are broken by that order, so any difference in it shows in the rates.
  constexpr int kHosts = 9;
  MaxMinShares scanned(kHosts, 1.5, 1 << 20), kept(kHosts, 1.5, 0);
  Random random(11);
  std::vector<int> busy;
  for (int step = 0; step < 2000; ++step) {
    CAPTURE(step);
    come_or_go(scanned, kept, kHosts, 3, random, busy);
    settle(scanned);
    settle(kept);
    for (int c : busy) CHECK(scanned.rate(c) == kept.rate(c));
  }
}

TEST_CASE("filling only the flows connected to a change gives every rate and change of filling all, bit for bit") {
  // Flows come and go at random, several between workings-out; one solver
  // fills only the flows connected to a change, the other every busy flow.
  // Both report the same changed flows (the order may differ: stars found
  // apart are listed as filled, and the network applies each change to its
  // own connection alone) and keep the same rates. Few hosts make one
  // connected set of busy flows; many, several apart.
  for (const int hosts : {3, 9, 40}) {
    CAPTURE(hosts);
    MaxMinShares part(hosts, 1.5, 1 << 20), every(hosts, 1.5, 1 << 20, MaxMinShares::Filling::kEveryFlow);
    Random random(static_cast<std::uint64_t>(hosts));
    std::vector<int> busy;
    for (int step = 0; step < 3000; ++step) {
      CAPTURE(step);
      const int changes = 1 + static_cast<int>(random.below(3));
      for (int k = 0; k < changes; ++k) come_or_go(part, every, hosts, 2, random, busy);
      const auto a = part.work_out();
      const auto b = every.work_out();
      std::vector<int> changed_a(a.begin(), a.end()), changed_b(b.begin(), b.end());
      std::sort(changed_a.begin(), changed_a.end());
      std::sort(changed_b.begin(), changed_b.end());
      CHECK(changed_a == changed_b);
      for (int c : changed_a) part.commit(c);
      for (int c : changed_b) every.commit(c);
      for (int c : busy) CHECK(part.rate(c) == every.rate(c));
    }
  }
}

}  // namespace
}  // namespace exsim::sim
