// Steady state allocates nothing per batch: a run with four times the rows
// (and RPCs) makes about as many heap allocations as the shorter one.
#include <doctest/doctest.h>

#include <atomic>
#include <cstdlib>
#include <new>

#include "tests/test_util.h"
#include "transport/exchange/local_cluster.h"

namespace {
std::atomic<long> g_allocations{0};
}  // namespace

// Counts every heap allocation of the test program (a counter, nothing else).
// Every form that the library pairs with these deletes is replaced, so that
// nothing allocated by the sanitizers' operator new is freed here (the nothrow
// form serves std::stable_sort's buffer, for one).
void* operator new(std::size_t size) {
  ++g_allocations;
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
void* operator new(std::size_t size, const std::nothrow_t&) noexcept {
  ++g_allocations;
  return std::malloc(size == 0 ? 1 : size);
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }

namespace exsim::transport {
namespace {

using namespace std::chrono_literals;

long allocations_for(LocalCluster& cluster, const Scenario& s, std::int64_t* rpcs) {
  RunStats stats(2);
  const long before = g_allocations.load();
  const ExchangeOutcome outcome = cluster.run_exchange(s.policies[0], 0, 0, 0, stats, 60s);
  const long used = g_allocations.load() - before;
  REQUIRE_MESSAGE(outcome.ok, outcome.error);
  *rpcs = stats.rpcs;
  return used;
}

// Runs `kind` with `rows` and four times the rows; checks the longer run makes
// well under one more allocation per extra RPC.
void check_steady_state(const std::string& kind, const char* receivers, int rows) {
  CAPTURE(kind);
  auto scenario = [&](int count) {
    return test::scenario_from(std::string(R"({"name": "alloc", "cluster": {"hosts": 2, "rtt_ms": {"same_group": 0.05}},
      "policies": {"p": {"buffer": {"flat": "16K"}, "in_flight": 2}},
      "workload": {"queries": [{"name": "q", "exchanges": [{"id": "x", "kind": ")") + kind + R"(", "rows": )" +
                               std::to_string(count) + R"(, "row": {"fixed_bytes": 64}, "lz4_ratio": 0.5,
        "senders": {"hosts": ["h0"], "per_host": 1}, "receivers": )" + receivers + R"(}]}]}})");
  };
  const Scenario small = scenario(rows), large = scenario(4 * rows);
  LocalCluster cluster(small, /*delay_line=*/false);
  std::int64_t warm_rpcs = 0, small_rpcs = 0, large_rpcs = 0;
  allocations_for(cluster, small, &warm_rpcs);  // warm-up: pools and caches grow once
  const long small_allocations = allocations_for(cluster, small, &small_rpcs);
  LocalCluster cluster_large(large, /*delay_line=*/false);
  allocations_for(cluster_large, large, &warm_rpcs);
  const long large_allocations = allocations_for(cluster_large, large, &large_rpcs);
  MESSAGE(kind, ": allocations: ", small_allocations, " for ", small_rpcs, " RPCs, ", large_allocations, " for ",
          large_rpcs, " RPCs");
  CHECK(large_rpcs > 3 * small_rpcs);
  // Per extra RPC, well under one allocation.
  CHECK(static_cast<double>(large_allocations - small_allocations) < 0.1 * static_cast<double>(large_rpcs - small_rpcs));
}

TEST_CASE("steady state allocates nothing per batch") {
  check_steady_state("hash", R"({"hosts": ["h1"], "per_host": 2})", 100000);  // two channels: rows routed one by one
  check_steady_state("random", R"({"hosts": ["h1"], "per_host": 1})", 400000);  // whole batches
}

}  // namespace
}  // namespace exsim::transport
