// The model against closed forms derived by hand. Costs are round numbers so
// every term can be followed: serialize 1 ns/B, deserialize 0.5 ns/B, 10 us CPU
// and 20 us software latency per RPC, 100 B framing, NICs of 1 B/ns (8 Gbit/s);
// moving bytes through the RPC stack and routing rows cost nothing here.
#include <doctest/doctest.h>

#include "sim/simulate.h"
#include "tests/test_util.h"

namespace exsim {
namespace {

constexpr const char* kCosts = R"("costs": {"serialize_bytes_per_s": 1e9, "deserialize_bytes_per_s": 2e9,
  "lz4_compress_bytes_per_s": 5e8, "lz4_decompress_bytes_per_s": 2e9, "rpc_cpu_us": 10, "rpc_latency_us": 20,
  "transfer_bytes_per_s": 0, "partition_rows_per_s": 0, "wire_overhead_bytes": 100})";

// One sender on host s, one receiver on host r, 0.5 ms apart; rows of exactly 100 B.
std::string one_channel(const std::string& policy, std::int64_t rows = 100000) {
  return std::string(R"({"name": "one-channel", )") + kCosts + R"(,
    "cluster": {"hosts": [{"name": "s", "group": "a"}, {"name": "r", "group": "a"}],
                "nic_gbps": 8, "rtt_ms": {"same_group": 0.5}},
    "policies": {"p": )" + policy + R"(},
    "workload": {"queries": [{"name": "q", "exchanges": [
      {"id": "x", "kind": "hash", "rows": )" + std::to_string(rows) + R"(, "row": {"fixed_bytes": 100},
       "lz4_ratio": 1, "senders": {"hosts": ["s"], "per_host": 1}, "receivers": {"hosts": ["r"], "per_host": 1}}]}]}})";
}

RunResult run(const std::string& json) {
  const Scenario s = test::scenario_from(json);
  return simulate(s, s.policies[0]);
}

TEST_CASE("one channel, one RPC in flight: wall-clock follows the closed form") {
  // A hash sender with one channel sends whole input batches (section 1.7):
  // 1024 rows of 100 B = 102400 B. 100000 rows = 97 full batches + 672 rows.
  // Sender work per batch S = 102400 B x 1 ns + 10 us RPC CPU = 112.4 us, less than a
  // round trip, so the channel is latency-bound and the sender always waits for it.
  // Round trip of a k-row batch: wire (100k + 4k + 100 B at 1 B/ns) + RTT 500 us
  //   + latency 20 us + receiver RPC CPU 10 us + deserialize 100k x 0.5 ns.
  auto round_trip = [](double k) { return (104 * k + 100) + 500e3 + 20e3 + 10e3 + 50 * k; };
  const double full = round_trip(1024), partial = round_trip(672), eos = 100 + 500e3 + 20e3 + 10e3;
  // Batch j is sent at S + (j-1) x full; the partial batch when the last full one
  // returns; then EOS after 10 us of RPC CPU; the run ends when its response arrives.
  const double expected_ns = 112.4e3 + 97 * full + partial + 10e3 + eos;
  const RunResult r = run(one_channel(R"({"buffer": {"flat": "16K"}, "compression": "none"})"));
  CHECK(r.rpcs == 98);
  CHECK(r.wall_s * 1e9 == doctest::Approx(expected_ns).epsilon(0.01));
  CHECK(r.wall_s * 1e9 == doctest::Approx(expected_ns).epsilon(0.0001));  // in fact, to the nanosecond scale
  REQUIRE(r.exchanges.size() == 1);
  CHECK(r.exchanges[0].rows == 100000);
  CHECK(r.exchanges[0].eos_rpcs == 1);
  // Network time per RPC: wire + RTT + latency, about 627 us.
  CHECK(r.rpc_network_p50_us == doctest::Approx((104 * 1024 + 100 + 520e3) / 1e3).epsilon(0.03));
}

// Two channels: one sender on s, two receiver instances on r.
std::string two_channels(const std::string& policy, std::int64_t rows) {
  std::string json = one_channel(policy, rows);
  const std::string one = R"("receivers": {"hosts": ["r"], "per_host": 1})";
  json.replace(json.find(one), one.size(), R"("receivers": {"hosts": ["r"], "per_host": 2})");
  return json;
}

TEST_CASE("RPC counts are exact for fixed_len and bytes capacity") {
  // One channel: whole input batches of 1024 rows whatever the buffer (section 1.7).
  CHECK(run(one_channel(R"({"buffer": {"flat": "16K"}})", 100000)).rpcs == (100000 + 1023) / 1024);
  CHECK(run(one_channel(R"({"buffer": {"flat": "1M"}, "capacity": "bytes"})", 100000)).rpcs == (100000 + 1023) / 1024);
  // Two channels of n1 + n2 = N rows, K rows a batch: each sends its full batches and
  // one partial one, so the count is ceil(N / K) or one more (both channels partial).
  auto within = [](std::int64_t rpcs, std::int64_t rows, std::int64_t k) {
    const std::int64_t least = (rows + k - 1) / k;
    return rpcs == least || rpcs == least + 1;
  };
  // fixed_len: 16384 / 100 = 163 rows a batch; bytes: ceil(16384 / 100) = 164.
  CHECK(within(run(two_channels(R"({"buffer": {"flat": "16K"}})", 100000)).rpcs, 100000, 163));
  CHECK(within(run(two_channels(R"({"buffer": {"flat": "16K"}, "capacity": "bytes"})", 100000)).rpcs, 100000, 164));
  CHECK(within(run(two_channels(R"({"buffer": {"flat": "64K"}})", 1000000)).rpcs, 1000000, 655));
  CHECK(within(run(two_channels(R"({"buffer": {"flat": "1M"}, "capacity": "bytes"})", 1000000)).rpcs, 1000000, 10486));
}

TEST_CASE("two RPCs in flight halve a latency-bound channel's time") {
  const RunResult one = run(one_channel(R"({"in_flight": 1, "compression": "none"})"));
  const RunResult two = run(one_channel(R"({"in_flight": 2, "compression": "none"})"));
  CHECK(one.rpcs == two.rpcs);
  CHECK(two.wall_s / one.wall_s == doctest::Approx(0.5).epsilon(0.02));
  const RunResult four = run(one_channel(R"({"in_flight": 4, "compression": "none"})"));
  CHECK(four.wall_s / one.wall_s == doctest::Approx(0.25).epsilon(0.04));
}

std::string into_one_host(int senders) {
  // 1 MiB batches, 4 in flight, 10 us RTT: bandwidth-bound. Each sender moves
  // 200000 rows of 1000 B; everything enters host r through one 1 B/ns NIC.
  std::string hosts = R"([{"name": "r", "group": "a"}, {"name": "s0", "group": "a"}, {"name": "s1", "group": "a"}])";
  std::string senders_list = senders == 1 ? R"(["s0"])" : R"(["s0", "s1"])";
  return std::string(R"({"name": "nic", "costs": {"serialize_bytes_per_s": 1e13, "deserialize_bytes_per_s": 1e13,
      "lz4_compress_bytes_per_s": 1e13, "lz4_decompress_bytes_per_s": 1e13, "rpc_cpu_us": 0, "rpc_latency_us": 0,
      "wire_overhead_bytes": 0},
    "cluster": {"hosts": )") + hosts + R"(, "nic_gbps": 8, "rtt_ms": {"same_group": 0.01}},
    "policies": {"p": {"buffer": {"flat": "1M"}, "in_flight": 4, "compression": "none", "receiver_buffer": "1G"}},
    "workload": {"queries": [{"name": "q", "exchanges": [
      {"id": "x", "kind": "hash", "rows": )" + std::to_string(200000 * senders) + R"(, "row": {"fixed_bytes": 1000},
       "lz4_ratio": 1, "senders": {"hosts": )" + senders_list + R"(, "per_host": 1},
       "receivers": {"hosts": ["r"], "per_host": 1}}]}]}})";
}

TEST_CASE("two senders into one host share its NIC: each gets half") {
  const RunResult one = run(into_one_host(1));
  const RunResult two = run(into_one_host(2));
  // Alone: 200000 x 1004 B at 1 B/ns. Together: twice the bytes through the same NIC.
  CHECK(one.wall_s == doctest::Approx(200000 * 1004e-9).epsilon(0.01));
  CHECK(two.wall_s == doctest::Approx(400000 * 1004e-9).epsilon(0.01));
  CHECK(two.bytes_wire == doctest::Approx(2 * one.bytes_wire));
}

TEST_CASE("a shared core: two sender threads on one core take twice as long") {
  auto scenario = [](int cores) {
    // Serialization, LZ4 and RPC costs made negligible: only producing rows costs CPU.
    return std::string(R"({"name": "cpu", "costs": {"serialize_bytes_per_s": 1e13, "deserialize_bytes_per_s": 1e13,
      "lz4_compress_bytes_per_s": 1e13, "lz4_decompress_bytes_per_s": 1e13, "rpc_cpu_us": 0},
      "cluster": {"hosts": 2, "cores_per_host": )") + std::to_string(cores) +
           R"(, "rtt_ms": {"same_group": 0.05}}, "mt_dop": 2, "policies": {"p": {"buffer": {"flat": "1M"}}},
      "workload": {"queries": [{"name": "q", "exchanges": [
        {"id": "x", "kind": "random", "rows": 2000000, "row": {"fixed_bytes": 8}, "lz4_ratio": 1,
         "produce_rows_per_s": 1e6, "senders": {"hosts": ["h0"]}, "receivers": {"hosts": ["h1"]}}]}]}})";
  };
  // Each of the 2 sender threads produces 1M rows at 1M rows/s: 1 s with a core each.
  const RunResult two_cores = run(scenario(2));
  const RunResult one_core = run(scenario(1));
  CHECK(two_cores.wall_s == doctest::Approx(1.0).epsilon(0.02));
  CHECK(one_core.wall_s / two_cores.wall_s == doctest::Approx(2.0).epsilon(0.02));
}

TEST_CASE("a rate beyond the simulator's clock is refused before the run, by its path") {
  // 1e-12 rows per second: one batch would take millions of years.
  std::string json = one_channel(R"({"buffer": {"flat": "16K"}})", 1000);
  json.replace(json.find(R"("lz4_ratio": 1)"), 14, R"("lz4_ratio": 1, "consume_rows_per_s": 1e-12)");
  CHECK_THROWS_WITH_AS(run(json), doctest::Contains("/exchanges/0/consume_rows_per_s: at 1e-12 rows/s"), ScenarioError);
}

TEST_CASE("a slow consumer defers RPCs and bounds the receiver queue") {
  const Scenario s = test::scenario_from(std::string(R"({"name": "slow", "cluster": {"hosts": 3,
      "rtt_ms": {"same_group": 0.1}}, "policies": {"p": {"receiver_buffer": "1M"}},
    "workload": {"queries": [{"name": "q", "exchanges": [
      {"id": "x", "kind": "hash", "rows": 3000000, "row": {"fixed_bytes": 40}, "lz4_ratio": 0.5,
       "consume_rows_per_s": 1e6, "receivers": {"hosts": ["h0"], "per_host": 1}}]}]}})"));
  const RunResult r = simulate(s, s.policies[0]);
  // The one consumer is the bottleneck: 3M rows at 1M rows/s.
  CHECK(r.wall_s == doctest::Approx(3.0).epsilon(0.02));
  CHECK(r.exchanges[0].deferred_rpcs > 0);
  CHECK(r.exchanges[0].sender_blocked_s > 1.0);
  // Queue: at most the 1 MiB limit plus one batch over it (soft limit), plus the
  // deferred payloads, at most one per sender channel (3 senders, 1 in flight each).
  const double batch = 1024 * 48.0;  // one channel: whole input batches, deserialized 40 + 8 B a row
  CHECK(static_cast<double>(r.hosts[0].receiver_peak_bytes) <= 1048576 + batch + 3 * batch);
  CHECK(r.hosts[0].receiver_peak_bytes >= 1048576 * 0.9);
}

}  // namespace
}  // namespace exsim
