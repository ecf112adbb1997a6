// models/scenario: placement groups from an RTT matrix, on synthetic matrices
// whose groups are known.
#include <doctest/doctest.h>

#include <algorithm>
#include <functional>
#include <vector>

#include "models/scenario/placement_groups.h"

namespace exsim {
namespace {

// A matrix whose RTT from a to b is rtt_ms(a, b); the diagonal stays 0.
LatencyMatrix matrix(int hosts, const std::function<double(int, int)>& rtt_ms) {
  LatencyMatrix m(hosts);
  for (int a = 0; a < hosts; ++a)
    for (int b = 0; b < hosts; ++b)
      if (a != b) m.set_rtt(a, b, ms_to_ns(rtt_ms(a, b)));
  return m;
}

// Deterministic noise in [-1, 1], the same in both directions.
double jitter(int a, int b) {
  const int low = std::min(a, b), high = std::max(a, b);
  return ((low * 7 + high * 13) % 21 - 10) / 10.0;
}

TEST_CASE("two groups of three with 10% jitter are found exactly") {
  auto groups = find_placement_groups(matrix(6, [](int a, int b) {
    return (a / 3 == b / 3 ? 0.1 : 0.5) * (1 + 0.1 * jitter(a, b));
  }));
  CHECK(groups.count == 2);
  CHECK(groups.group_of == std::vector<int>{0, 0, 0, 1, 1, 1});
  CHECK(groups.within_max_ms <= 0.11 + 1e-9);
  CHECK(groups.between_min_ms >= 0.45 - 1e-9);
  CHECK_MESSAGE(groups.why.find("2 groups") != std::string::npos, groups.why);
}

TEST_CASE("four interleaved groups of five are found exactly, numbered by first host") {
  // Host i is in group i % 4; within 0.1-0.1475 ms, between 0.3-0.7 ms by the pair of groups.
  auto groups = find_placement_groups(matrix(20, [](int a, int b) {
    const int g = a % 4, h = b % 4;
    if (g == h) return 0.10 + 0.0125 * g + 0.01 * ((std::min(a, b) * 7 + std::max(a, b) * 13) % 11) / 10;
    return 0.3 + 0.1 * (g + h - 1);
  }));
  CHECK(groups.count == 4);
  for (int host = 0; host < 20; ++host) CHECK(groups.group_of[host] == host % 4);
  // Group 3 holds hosts 3 and 11: (3*7 + 11*13) % 11 = 10, so 0.1375 + 0.01.
  CHECK(groups.within_max_ms == doctest::Approx(0.1475));
  CHECK(groups.between_min_ms == doctest::Approx(0.3));  // groups 0 and 1
}

TEST_CASE("groups are numbered in order of their first host") {
  const std::vector<int> label{7, 3, 3, 7, 5};
  auto groups = find_placement_groups(matrix(5, [&](int a, int b) { return label[a] == label[b] ? 0.1 : 0.4; }));
  CHECK(groups.group_of == std::vector<int>{0, 1, 1, 0, 2});
  CHECK(groups.count == 3);
}

TEST_CASE("a uniform matrix is one group, and why gives the ratio") {
  auto jittered = find_placement_groups(matrix(8, [](int a, int b) { return 0.2 * (1 + 0.15 * jitter(a, b)); }));
  CHECK(jittered.count == 1);
  CHECK(jittered.group_of == std::vector<int>(8, 0));
  CHECK(jittered.between_min_ms == 0);
  CHECK(jittered.within_max_ms > 0.2);
  CHECK(jittered.within_max_ms <= 0.23 + 1e-9);
  CHECK_MESSAGE(jittered.why.find("below the 1.5x") != std::string::npos, jittered.why);

  // All 0.2 ms but one pair at 0.26 ms: the largest step is 1.30x.
  auto one_slow = find_placement_groups(matrix(4, [](int a, int b) { return a + b == 3 && a * b == 2 ? 0.26 : 0.2; }));
  CHECK(one_slow.count == 1);
  CHECK(one_slow.within_max_ms == doctest::Approx(0.26));
  CHECK_MESSAGE(one_slow.why.find("is 1.30x") != std::string::npos, one_slow.why);
}

TEST_CASE("a split needs a step of at least kPlacementGapRatio") {
  auto pairs_of_two = [](double between_ms) {
    return find_placement_groups(matrix(4, [=](int a, int b) { return a / 2 == b / 2 ? 0.2 : between_ms; }));
  };
  auto above = pairs_of_two(0.32);  // 1.6x
  CHECK(above.count == 2);
  CHECK(above.group_of == std::vector<int>{0, 0, 1, 1});
  CHECK_MESSAGE(above.why.find("1.60x apart") != std::string::npos, above.why);
  auto below = pairs_of_two(0.28);  // 1.4x
  CHECK(below.count == 1);
  CHECK_MESSAGE(below.why.find("1.40x") != std::string::npos, below.why);
}

TEST_CASE("asymmetric RTTs are averaged over both directions") {
  // Groups {0, 1} and {2, 3}. Either direction alone misleads: 0->2 and 3->1
  // look near (0.1 ms) and are 0.5 ms as means; 0<->1 is 0.2 ms as a mean.
  LatencyMatrix m(4);
  auto both = [&](int a, int b, double ab_ms, double ba_ms) {
    m.set_rtt(a, b, ms_to_ns(ab_ms));
    m.set_rtt(b, a, ms_to_ns(ba_ms));
  };
  both(0, 1, 0.1, 0.3);
  both(2, 3, 0.12, 0.12);
  both(0, 2, 0.1, 0.9);
  both(1, 3, 0.9, 0.1);
  both(0, 3, 0.6, 0.6);
  both(1, 2, 0.6, 0.6);
  auto groups = find_placement_groups(m);
  CHECK(groups.group_of == std::vector<int>{0, 0, 1, 1});
  CHECK(groups.within_max_ms == doctest::Approx(0.2));   // (0.1 + 0.3) / 2
  CHECK(groups.between_min_ms == doctest::Approx(0.5));  // (0.1 + 0.9) / 2
}

TEST_CASE("single-linkage chains that break the split fall back to one group") {
  // 0-1 and 1-2 are 0.1 ms but 0-2 is 0.6 ms, more than the 0.5 ms to {3, 4}:
  // the 5x step would put 0.6 ms inside a group, so no split.
  auto chained = find_placement_groups(matrix(5, [](int a, int b) {
    if (a + b == 2 && a != 1) return 0.6;  // 0-2
    if (a / 3 != b / 3) return 0.5;
    return 0.1;
  }));
  CHECK(chained.count == 1);
  CHECK(chained.group_of == std::vector<int>(5, 0));
  CHECK(chained.within_max_ms == doctest::Approx(0.6));
  CHECK(chained.between_min_ms == 0);
  CHECK_MESSAGE(chained.why.find("0.600 ms inside a group against 0.500 ms") != std::string::npos, chained.why);

  // With 0-2 at 0.4 ms the chain stays below the 0.5 ms between groups, but
  // 1.25x is not clearly apart: still one group.
  auto close_chain = find_placement_groups(matrix(5, [](int a, int b) {
    if (a + b == 2 && a != 1) return 0.4;
    return a / 3 != b / 3 ? 0.5 : 0.1;
  }));
  CHECK(close_chain.count == 1);
  CHECK_MESSAGE(close_chain.why.find("only 1.25x apart") != std::string::npos, close_chain.why);

  // 0-1 and 1-2 near, 0-2 far: the near pairs link all three hosts.
  auto linked = find_placement_groups(matrix(3, [](int a, int b) { return a + b == 2 ? 0.5 : 0.1; }));
  CHECK(linked.count == 1);
  CHECK_MESSAGE(linked.why.find("chain into a single group") != std::string::npos, linked.why);
}

TEST_CASE("with racks inside zones the largest step wins") {
  // Same rack (i / 2) 0.1 ms, same zone (i / 4) 0.3 ms (3x), other zone 1.5 ms (5x).
  auto groups = find_placement_groups(matrix(8, [](int a, int b) {
    return a / 2 == b / 2 ? 0.1 : a / 4 == b / 4 ? 0.3 : 1.5;
  }));
  CHECK(groups.group_of == std::vector<int>{0, 0, 0, 0, 1, 1, 1, 1});
  CHECK(groups.within_max_ms == doctest::Approx(0.3));
  CHECK(groups.between_min_ms == doctest::Approx(1.5));
}

TEST_CASE("of two equal steps the lower one, the finer split, wins") {
  // Same rack 0.1 ms, same zone 0.3 ms, other zone 0.9 ms: both steps are 3x.
  auto groups = find_placement_groups(matrix(8, [](int a, int b) {
    return a / 2 == b / 2 ? 0.1 : a / 4 == b / 4 ? 0.3 : 0.9;
  }));
  CHECK(groups.group_of == std::vector<int>{0, 0, 1, 1, 2, 2, 3, 3});
  CHECK(groups.within_max_ms == doctest::Approx(0.1));
  CHECK(groups.between_min_ms == doctest::Approx(0.3));
}

TEST_CASE("zero, one or two hosts are one group") {
  CHECK(find_placement_groups(LatencyMatrix(0)).count == 0);
  auto one = find_placement_groups(LatencyMatrix(1));
  CHECK(one.count == 1);
  CHECK(one.group_of == std::vector<int>{0});
  CHECK(one.within_max_ms == 0);
  // However far apart, two hosts have nothing to compare their RTT with.
  LatencyMatrix m(2);
  m.set_rtt(0, 1, ms_to_ns(40));
  m.set_rtt(1, 0, ms_to_ns(60));
  auto two = find_placement_groups(m);
  CHECK(two.count == 1);
  CHECK(two.group_of == std::vector<int>{0, 0});
  CHECK(two.within_max_ms == doctest::Approx(50));
  CHECK(two.between_min_ms == 0);
  CHECK(!two.why.empty());
}

}  // namespace
}  // namespace exsim
