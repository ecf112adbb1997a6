// A sender fed by its scanner threads (models/rules/scan_feed.h) against
// closed forms: at mt_dop 0 the scan runs beside the sender's thread, so a
// sender takes the longer of the two; at mt_dop > 0 the thread scans itself,
// so it takes their sum; scanner threads share the host's cores.
#include <doctest/doctest.h>

#include <string>

#include "models/base/error.h"
#include "tests/sim/analytic_scenarios.h"

namespace exsim {
namespace {

using test::run;

// One random sender on h0 into one receiver on h1: 2,048,000 rows of 8 B (2000
// input batches), the sender's operator at 8M rows/s, its scan at `scan_rate`
// per scanner thread. Every other cost is negligible.
std::string scanned(int mt_dop, int threads, int cores, double scan_rate = 1e6) {
  return std::string(R"({"name": "scan", "costs": {"serialize_bytes_per_s": 1e13, "deserialize_bytes_per_s": 1e13,
    "lz4_compress_bytes_per_s": 1e13, "lz4_decompress_bytes_per_s": 1e13, "rpc_cpu_us": 0,
    "serialize_row_ns": 0, "deserialize_row_ns": 0},
    "cluster": {"hosts": 2, "cores_per_host": )") + std::to_string(cores) +
         R"(, "rtt_ms": {"same_group": 0.05}}, "mt_dop": )" + std::to_string(mt_dop) + R"(,
    "policies": {"p": {"buffer": {"flat": "1M"}}},
    "workload": {"queries": [{"name": "q", "exchanges": [
      {"id": "x", "kind": "random", "rows": 2048000, "row": {"fixed_bytes": 8}, "lz4_ratio": 1,
       "produce_rows_per_s": 8e6, "scan": {"rows_per_s": )" + std::to_string(scan_rate) + R"(, "threads": )" +
         std::to_string(threads) + R"(},
       "senders": {"hosts": ["h0"], "per_host": 1}, "receivers": {"hosts": ["h1"], "per_host": 1}}]}]}})";
}

TEST_CASE("one scanner thread beside the sender: the slower of the two bounds it, and the wait is the producer's") {
  // Scan 2.048 s, the sender's own operator 0.256 s: apart, 2.048 s (plus the
  // first batch's operator work); on the thread (mt_dop 1), their sum.
  const RunResult apart = run(scanned(0, 1, 4));
  const RunResult on_thread = run(scanned(1, 1, 4));
  CHECK(apart.wall_s == doctest::Approx(2.048).epsilon(0.01));
  CHECK(on_thread.wall_s == doctest::Approx(2.048 + 0.256).epsilon(0.01));
  // The same CPU either way: every row scanned once and produced once.
  CHECK(apart.cpu_s.produce == doctest::Approx(2.048 + 0.256).epsilon(1e-6));
  CHECK(on_thread.cpu_s.produce == doctest::Approx(apart.cpu_s.produce).epsilon(1e-6));
  // The sender thread waits for its scan: that time is the producer's.
  CHECK(apart.exchanges.at(0).sender_time.largest() == Bound::kProducer);
  CHECK(apart.sender_time()[Bound::kProducer] == doctest::Approx(2.048).epsilon(0.01));
  CHECK(results_to_json({apart}) == results_to_json({run(scanned(0, 1, 4))}));
}

TEST_CASE("scanner threads divide the scan among them, as far as the host's cores go") {
  // Four threads at 1M rows/s scan 4M rows/s; the sender's operator takes 8M:
  // with a core for each thread, the scan's 0.512 s bounds the run.
  CHECK(run(scanned(0, 4, 8)).wall_s == doctest::Approx(0.512).epsilon(0.02));
  // On 2 cores the five threads' 2.304 s of CPU take at least 1.152 s, and
  // the cores are never idle while rows are left to scan.
  CHECK(run(scanned(0, 4, 2)).wall_s == doctest::Approx(1.152).epsilon(0.02));
  // On one core nothing overlaps: the sum, as if the thread scanned itself.
  CHECK(run(scanned(0, 4, 1)).wall_s == doctest::Approx(2.304).epsilon(0.01));
}

TEST_CASE("a scan faster than its sender: the sender's own work bounds it") {
  // The scan at 80M rows/s is 0.0256 s, the operator 0.256 s: the sender never
  // waits but for the first step (the queue keeps the scan ahead of it).
  const RunResult fast = run(scanned(0, 1, 4, 8e7));
  CHECK(fast.wall_s == doctest::Approx(0.256).epsilon(0.01));
  CHECK(fast.sender_time()[Bound::kProducer] == doctest::Approx(0.256).epsilon(0.01));  // the operator's, on the thread
}

TEST_CASE("a hash sender fed by scanner threads delivers every row and byte, the same for the same seed") {
  // 4 hosts, a skewed hash shuffle of 42 B rows, each sender's scan on 2 threads.
  const std::string json = R"({"name": "scanned-hash", "seed": 11,
    "cluster": {"hosts": 4, "groups": {"a": 2, "b": 2}, "rtt_ms": {"same_group": 0.1, "cross_group": 0.5}},
    "policies": {"p": {"compression": "none"}},
    "workload": {"queries": [{"name": "q", "exchanges": [
      {"id": "h", "kind": "hash", "rows": 500000, "row": {"fixed_bytes": 30, "varlen_bytes": 12}, "lz4_ratio": 0.5,
       "skew": 0.8, "produce_rows_per_s": 2e7, "scan": {"rows_per_s": 5e6, "threads": 2}}]}]}})";
  const RunResult r = run(json);
  const ExchangeResult& x = r.exchanges.at(0);
  CHECK(x.rows == 500000);
  CHECK(x.bytes_uncompressed == doctest::Approx(46.0 * 500000));
  CHECK(x.bytes_wire == doctest::Approx(x.bytes_uncompressed + 96.0 * static_cast<double>(x.rpcs + x.eos_rpcs)));
  CHECK(x.eos_rpcs == 4 * 4);
  CHECK(r.cpu_s.produce == doctest::Approx(500000 / 2e7 + 500000 / 5e6).epsilon(1e-6));
  CHECK(results_to_json({r}) == results_to_json({run(json)}));
  CHECK(results_to_json({r}) != results_to_json({run(json, {"seed=12"})}));
}

TEST_CASE("a scan without its threads, or with none, is refused by its path") {
  const std::string json = scanned(0, 1, 4);
  CHECK_THROWS_WITH_AS(run(test::with_value(json, "/workload/queries/0/exchanges/0/scan", R"({"rows_per_s": 1e6})")),
                       doctest::Contains("/exchanges/0/scan: missing required key 'threads'"), InputError);
  CHECK_THROWS_WITH_AS(run(test::with_value(json, "/workload/queries/0/exchanges/0/scan/threads", "0")),
                       doctest::Contains("/workload/queries/0/exchanges/0/scan/threads"), InputError);
  CHECK_THROWS_WITH_AS(run(test::with_value(json, "/workload/queries/0/exchanges/0/scan/rows_per_s", "1e-12")),
                       doctest::Contains("/exchanges/0/scan/rows_per_s: at 1e-12 rows/s"), InputError);
}

}  // namespace
}  // namespace exsim
