// Scanner threads beside a sender of the real exchange (models/rules/scan_feed.h):
// they stop at a full queue, they deliver every batch, and at mt_dop 0 a
// sender's scan overlaps its own work where at mt_dop > 0 it adds to it. The
// timing check is a ratio of two runs in one test, with wide headroom.
#include <doctest/doctest.h>

#include <chrono>
#include <thread>

#include "tests/test_util.h"
#include "transport/exchange/local_cluster.h"
#include "transport/exchange/scanner_threads.h"

namespace exsim::transport {
namespace {

using namespace std::chrono_literals;

TEST_CASE("scanner threads stop at a full queue, and deliver every batch once taken") {
  // 100 batches of 1 ms of CPU each; a queue of 2 and one thread: without a
  // taker, the scanner scans 2 queued batches and holds a third.
  std::atomic<std::int64_t> cpu{0};
  ScannerThreads scanners({1, 2, 1e6 / 1024, 100 * 1024, 1024}, cpu);
  scanners.start();
  // It stops: its CPU stays the same over 50 ms (waited for up to 10 s on a busy
  // machine), after at least 2 queued batches and well before the scan's 100.
  // The bound is loose because a thread's CPU clock can jump by milliseconds on
  // a loaded virtual machine (one run read 6.0 ms for 3 batches of 1 ms).
  const auto give_up = std::chrono::steady_clock::now() + 10s;
  std::int64_t seen = -1;
  while ((cpu.load() != seen || seen < 2'000'000) && std::chrono::steady_clock::now() < give_up) {
    seen = cpu.load();
    std::this_thread::sleep_for(50ms);
  }
  CHECK(cpu.load() == seen);
  CHECK(seen >= 2'000'000);
  CHECK(seen <= 20'000'000);
  const auto deadline = std::chrono::steady_clock::now() + 30s;
  int taken = 0;
  while (taken < 100 && scanners.take(deadline)) ++taken;
  CHECK(taken == 100);
  CHECK(cpu.load() >= 100'000'000);
  // Nothing is left: a further take waits to its deadline and fails.
  CHECK_FALSE(scanners.take(std::chrono::steady_clock::now() + 20ms));
}

TEST_CASE("stopping wakes a sender waiting for a batch, and the scanners stop mid-batch") {
  std::atomic<std::int64_t> cpu{0};
  const auto from = std::chrono::steady_clock::now();
  {
    ScannerThreads scanners({1, 1, 1e9, 1024, 1024}, cpu);  // a batch of 1024 s
    scanners.start();
    std::thread stopper([&] {
      std::this_thread::sleep_for(20ms);
      scanners.stop();
    });
    CHECK_FALSE(scanners.take(from + 30s));
    stopper.join();
  }  // joins the scanner
  CHECK(std::chrono::steady_clock::now() - from < 5s);
  CHECK(cpu.load() < 5'000'000'000);
}

// One random sender into one receiver 2 ms away: 200 input batches of 1024
// rows, each one call at one in flight (200 round trips, 0.4 s), and a scan of
// 1 ms a batch (0.2 s of CPU). The sender's own operator costs next to nothing.
const char* kScanned = R"({"name": "scanned", "seed": 5, "cluster": {"hosts": 2, "rtt_ms": {"same_group": 2.0}},
  "mt_dop": 0, "policies": {"p": {"buffer": {"flat": "16K"}, "compression": "none"}},
  "workload": {"queries": [{"name": "q", "exchanges": [
    {"id": "x", "kind": "random", "rows": 204800, "row": {"fixed_bytes": 8}, "lz4_ratio": 1,
     "scan": {"rows_per_s": 1024000, "threads": 1},
     "senders": {"hosts": ["h0"], "per_host": 1}, "receivers": {"hosts": ["h1"], "per_host": 1}}]}]}})";

TEST_CASE("a sender's scan runs on its scanner thread at mt_dop 0 and on its own thread at mt_dop 1") {
  // Either way the scan of a batch overlaps the round trip of the one before
  // (a sender prepares its next batch while its call is out), so the run takes
  // its round trips. What differs is where the scan runs: at mt_dop 1 the
  // sender's thread spends 0.2 s getting its input; at mt_dop 0 the scanner
  // thread runs ahead of it by its queue and the sender barely waits. Round
  // trips leave the cores idle: this holds with another process keeping one
  // core busy.
  double input_s[2] = {0, 0};
  for (int mt_dop : {0, 1}) {
    CAPTURE(mt_dop);
    const Scenario s = test::scenario_from(kScanned, {"mt_dop=" + std::to_string(mt_dop)});
    LocalCluster cluster(s, /*delay_line=*/true);
    RunStats stats(2);
    const ExchangeOutcome outcome = cluster.run_exchange(s.policies[0], 0, 0, 0, stats, 60s);
    REQUIRE_MESSAGE(outcome.ok, outcome.error);
    CHECK(stats.rows_delivered == 204800);
    CHECK(stats.rpcs == 200);
    CHECK(outcome.wall_s >= 0.4);
    // The scan's 0.2 s of CPU, wherever it ran (our generator's work beside it).
    CHECK(static_cast<double>(stats.cpu_produce.load()) * 1e-9 == doctest::Approx(0.2).epsilon(0.25));
    input_s[mt_dop] = static_cast<double>(stats.produce_wall_ns.load()) * 1e-9;
  }
  CHECK(input_s[1] >= 0.2);
  CHECK(input_s[0] < 0.5 * input_s[1]);
}

}  // namespace
}  // namespace exsim::transport
