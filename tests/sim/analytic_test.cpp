// The model against closed forms derived by hand. Costs are round numbers so
// every term can be followed: serialize 1 ns/B, deserialize 0.5 ns/B, 10 us CPU
// and 20 us software latency per RPC, 100 B framing, NICs of 1 B/ns (8 Gbit/s);
// moving bytes through the RPC stack and routing rows cost nothing here.
#include <doctest/doctest.h>

#include <cmath>

#include <algorithm>
#include <map>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "models/results/trace.h"
#include "models/rules/partitioning.h"
#include "sim/simulate.h"
#include "tests/sim/analytic_scenarios.h"
#include "tests/test_util.h"

namespace exsim {
namespace {

using test::kCosts;
using test::one_channel;
using test::run;

TEST_CASE("one channel, one RPC in flight: wall-clock follows the closed form") {
  // A hash sender with one channel sends whole input batches (docs/impala.md §1.7):
  // 1024 rows of 100 B = 102400 B. 100000 rows = 97 full batches + 672 rows.
  // Sender work per batch: 102400 B x 1 ns = 102.4 us, then, once the channel has
  // room, the call's own 10 us of RPC CPU (TransmitData waits, then sends). That
  // is less than a round trip, so the channel is latency-bound and the sender
  // always waits for it.
  // Round trip of a k-row batch: wire (100k + 4k + 100 B at 1 B/ns) + RTT 500 us
  //   + latency 20 us + receiver RPC CPU 10 us + deserialize 100k x 0.5 ns.
  auto round_trip = [](double k) { return (104 * k + 100) + 500e3 + 20e3 + 10e3 + 50 * k; };
  const double full = round_trip(1024), partial = round_trip(672), eos = 100 + 500e3 + 20e3 + 10e3;
  // Batch 1 is sent at 112.4 us (its channel free, the call's CPU right after
  // the rows); batch j > 1 when batch j-1 returns plus its 10 us call CPU, so
  // 1 + 96 (full + 10 us); the partial batch when the last full one returns
  // plus 10 us; then EOS after 10 us of RPC CPU; the run ends when its response
  // arrives.
  const double expected_ns = 112.4e3 + 96 * (full + 10e3) + full + 10e3 + partial + 10e3 + eos;
  const RunResult r = run(one_channel(R"({"buffer": {"flat": "16K"}, "compression": "none"})"));
  CHECK(r.rpcs == 98);
  CHECK(r.wall_s * 1e9 == doctest::Approx(expected_ns).epsilon(0.0001));  // in fact, to the nanosecond scale
  REQUIRE(r.exchanges.size() == 1);
  CHECK(r.exchanges[0].rows == 100000);
  CHECK(r.exchanges[0].eos_rpcs == 1);
  // Network time per RPC: wire + RTT + latency, about 627 us.
  CHECK(r.rpc_network.p50_us == doctest::Approx((104 * 1024 + 100 + 520e3) / 1e3).epsilon(0.03));
  // Receiver time per RPC (Impala's RpcRecvrTime): its RPC CPU and deserialization, 10 + 51.2 us.
  CHECK(r.rpc_receiver.p50_us == doctest::Approx((10e3 + 50 * 1024) / 1e3).epsilon(0.03));
  // The exchange's own means, as Impala's profile gives a sender's, exactly
  // (sums, not histogram buckets): 97 full batches and one of 672 rows.
  const double wire_mean = (97 * (104 * 1024 + 100) + (104 * 672 + 100)) / 98.0;
  CHECK(r.exchanges[0].rpc_network_us_mean * 1e3 == doctest::Approx(wire_mean + 520e3).epsilon(1e-6));
  CHECK(r.exchanges[0].rpc_receiver_us_mean * 1e3 == doctest::Approx(10e3 + 50 * (97 * 1024 + 672) / 98.0).epsilon(1e-6));
}

TEST_CASE("per-row serialization and deserialization: rows x per row + bytes x per byte") {
  // 100000 rows of 100 B. Serialization: 100000 x 50 ns + 1e7 B x 1 ns = 15 ms;
  // deserialization: 100000 x 20 ns + 1e7 B x 0.5 ns = 7 ms. Without the
  // per-row figures, 10 and 5 ms: what each adds is its rows' share alone.
  const std::string policy = R"({"buffer": {"flat": "16K"}, "compression": "none"})";
  const RunResult bytes_only = run(one_channel(policy));
  const RunResult per_row = run(one_channel(policy), {"costs.serialize_row_ns=50", "costs.deserialize_row_ns=20"});
  CHECK(bytes_only.cpu_s.serialize == doctest::Approx(10e-3));
  CHECK(bytes_only.cpu_s.deserialize == doctest::Approx(5e-3));
  CHECK(per_row.cpu_s.serialize == doctest::Approx(15e-3));
  CHECK(per_row.cpu_s.deserialize == doctest::Approx(7e-3));
  CHECK(per_row.rpcs == bytes_only.rpcs);
  // The channel is latency-bound (section above): 5 ms more on the sender is
  // hidden behind the round trips but for the first batch's 1024 x 50 ns, and
  // each batch's 1024 x 20 ns more of deserialization lengthens its round trip.
  const double more_ns = 1024 * 50 + 97 * 1024 * 20.0 + 672 * 20;
  CHECK((per_row.wall_s - bytes_only.wall_s) * 1e9 == doctest::Approx(more_ns).epsilon(0.01));
}

// Two channels: one sender on s, two receiver instances on r.
std::string two_channels(const std::string& policy, std::int64_t rows) {
  return test::with_value(one_channel(policy, rows), "/workload/queries/0/exchanges/0/receivers/per_host", "2");
}

// Each channel's TransmitData calls, read from a trace of the run ("rpc in
// flight" spans; end-of-stream calls carry no rows): their rows in the order
// sent, and when the channel's last call was answered. Keyed by (host, track).
struct ChannelCalls {
  std::string name;  // "<exchange> sender <i> channel <c> to <host>"
  std::vector<std::int64_t> rows;
  double last_answer_us = 0;
  std::int64_t total_rows() const { return std::accumulate(rows.begin(), rows.end(), std::int64_t{0}); }
};
std::map<std::pair<int, int>, ChannelCalls> calls_by_channel(const std::string& json) {
  const Scenario s = test::scenario_from(json);
  Trace trace;
  SimulateOptions options;
  options.trace = &trace;
  simulate(s, s.policies[0], options);
  REQUIRE(trace.sampling_shift() == 0);  // every span kept
  std::map<std::pair<int, int>, ChannelCalls> channels;
  const auto doc = nlohmann::json::parse(trace.to_json("test"));
  std::map<std::pair<int, int>, std::string> names;
  for (const auto& e : doc.at("traceEvents")) {
    if (e.value("name", std::string()) == "thread_name") {
      names[{e.at("pid").get<int>(), e.at("tid").get<int>()}] = e.at("args").at("name").get<std::string>();
    }
    if (e.value("name", std::string()) != "rpc in flight") continue;
    ChannelCalls& c = channels[{e.at("pid").get<int>(), e.at("tid").get<int>()}];
    const auto rows = e.at("args").at("rows").get<std::int64_t>();
    if (rows > 0) c.rows.push_back(rows);
    c.last_answer_us = std::max(c.last_answer_us, e.at("ts").get<double>() + e.at("dur").get<double>());
  }
  for (auto& [track, channel] : channels) channel.name = names[track];
  return channels;
}

TEST_CASE("RPC counts are exact for fixed_len and bytes capacity") {
  // One channel: whole input batches of 1024 rows whatever the buffer (docs/impala.md §1.7).
  CHECK(run(one_channel(R"({"buffer": {"flat": "16K"}})", 100000)).rpcs == (100000 + 1023) / 1024);
  CHECK(run(one_channel(R"({"buffer": {"flat": "1M"}, "capacity": "bytes"})", 100000)).rpcs == (100000 + 1023) / 1024);
  // Two channels: the hash splits the rows at random, n1 + n2 = N. A channel of n
  // rows with K rows a batch sends floor(n / K) full batches and, if K does not
  // divide n, one partial batch at the end: ceil(n / K) calls, every one but the
  // last of exactly K rows. fixed_len: K = 16384 / 100 = 163 rows (var-len
  // ignored); bytes: the batch is sent when it reaches 16384 B, at
  // K = ceil(16384 / 100) = 164 rows; 64K fixed_len: 655; 1M bytes: 10486.
  // Past the 8 MiB cap either way, the batch goes when its tuple data reaches
  // 8 MiB: K = ceil(8388608 / 100) = 83887 rows.
  struct Case {
    const char* policy;
    std::int64_t rows, k;
  };
  for (const Case& c : {Case{R"({"buffer": {"flat": "16K"}})", 100000, 163},
                        Case{R"({"buffer": {"flat": "16K"}, "capacity": "bytes"})", 100000, 164},
                        Case{R"({"buffer": {"flat": "64K"}})", 1000000, 655},
                        Case{R"({"buffer": {"flat": "1M"}, "capacity": "bytes"})", 1000000, 10486},
                        Case{R"({"buffer": {"flat": "32M"}})", 1000000, 83887},
                        Case{R"({"buffer": {"flat": "32M"}, "capacity": "bytes"})", 1000000, 83887}}) {
    CAPTURE(c.policy);
    const std::string scenario = two_channels(c.policy, c.rows);
    const auto channels = calls_by_channel(scenario);
    REQUIRE(channels.size() == 2);
    std::int64_t rows = 0, calls = 0, expected = 0;
    for (const auto& [track, channel] : channels) {
      std::int64_t n = 0;
      for (std::size_t i = 0; i < channel.rows.size(); ++i) {
        n += channel.rows[i];
        if (i + 1 < channel.rows.size()) CHECK(channel.rows[i] == c.k);
      }
      CHECK(channel.rows.back() <= c.k);
      expected += (n + c.k - 1) / c.k;
      calls += static_cast<std::int64_t>(channel.rows.size());
      rows += n;
    }
    CHECK(rows == c.rows);
    CHECK(calls == expected);
    CHECK(run(scenario).rpcs == expected);
  }
}

TEST_CASE("a budget's batches are never smaller than today's (IMPALA-15512)") {
  // Rows of 50 B fixed and exactly 50 B of strings. Today (16K, fixed_len) a batch
  // holds 16384 / 50 = 327 rows (32700 B: strings are not counted). A budget of
  // 64K over 2 channels targets 64K / (2 x 2) = 16K, flushed by bytes: 164 rows
  // would reach it, but the batch goes on to today's 327. A flat 16K flushed by
  // bytes has no such floor: 164 rows.
  auto batches = [](const std::string& policy) {
    const std::string json =
        test::with_value(two_channels(policy, 100000), "/workload/queries/0/exchanges/0/row", R"({"fixed_bytes": 50, "varlen_bytes": 50})");
    std::vector<std::int64_t> rows;
    for (const auto& [track, channel] : calls_by_channel(json)) {
      rows.insert(rows.end(), channel.rows.begin(), channel.rows.end() - 1);  // all but the partial last
    }
    return rows;
  };
  for (const std::int64_t rows : batches(R"({"buffer": {"budget": "64K"}})")) CHECK(rows == 327);
  for (const std::int64_t rows : batches(R"({"buffer": {"flat": "16K"}, "capacity": "bytes"})")) CHECK(rows == 164);
  for (const std::int64_t rows : batches(R"({"buffer": {"flat": "16K"}})")) CHECK(rows == 327);
  // Past the floor, the byte target rules: 256K over 2 channels is 64K, 656 rows of 100 B.
  for (const std::int64_t rows : batches(R"({"buffer": {"budget": "256K"}})")) CHECK(rows == 656);
}

TEST_CASE("hash routing gives each receiver its Zipf share of the rows") {
  // Skew 1 over 4 receiver instances: ranks get 1, 1/2, 1/3, 1/4 over H4 = 25/12,
  // i.e. 48%, 24%, 16% and 12% of the rows, at instances a seeded permutation
  // picks. 400000 rows: a share's binomial spread is under 0.1% of the rows.
  const std::vector<double> shares = zipf_shares(4, 1.0, 7);
  std::vector<double> sorted = shares;
  std::sort(sorted.rbegin(), sorted.rend());
  CHECK(sorted[0] == doctest::Approx(12.0 / 25));
  CHECK(sorted[1] == doctest::Approx(6.0 / 25));
  CHECK(sorted[2] == doctest::Approx(4.0 / 25));
  CHECK(sorted[3] == doctest::Approx(3.0 / 25));
  CHECK(zipf_shares(4, 1.0, 7) == shares);  // the seed decides the permutation
  for (double share : zipf_shares(5, 0.0, 7)) CHECK(share == doctest::Approx(0.2));

  std::string json = one_channel(R"({"buffer": {"flat": "16K"}})", 400000);
  json = test::with_value(json, "/workload/queries/0/exchanges/0/receivers/per_host", "4");
  json = test::with_value(json, "/workload/queries/0/exchanges/0/skew", "1");
  const Scenario scenario = test::scenario_from(json);
  const std::vector<double> expected = receiver_shares(scenario.queries[0].exchanges[0],
                                                       exchange_seed(scenario, 0, 0, 0));
  const auto channels = calls_by_channel(json);
  REQUIRE(channels.size() == 4);
  for (const auto& [track, channel] : channels) {
    const auto c = static_cast<std::size_t>(std::stoi(channel.name.substr(channel.name.find("channel ") + 8)));
    CAPTURE(channel.name);
    CHECK(static_cast<double>(channel.total_rows()) / 400000 == doctest::Approx(expected[c]).epsilon(0.01));
  }
}

TEST_CASE("head-of-line: a channel that is full stalls the sender's other channels") {
  // One sender, two channels: to `near` 0.1 ms away and to `far` 4 ms away, 16K
  // batches of 163 rows, one RPC in flight. The far channel is latency-bound:
  // each of its batches waits a round trip of about 4 ms for the previous one.
  // When the next batch is the far channel's and its call is still out, the
  // whole thread waits (docs/impala.md §2.3), so the near channel's batches are sent at
  // the far channel's pace and its last one is answered at the end too, not
  // after the ~30 ms its own round trips would take.
  std::string json = std::string(R"({"name": "hol", )") + kCosts + R"(,
    "cluster": {"hosts": [{"name": "s", "group": "a"}, {"name": "near", "group": "a"}, {"name": "far", "group": "a"}],
                "nic_gbps": 8, "rtt_matrix_ms": [[0, 0.1, 4], [0.1, 0, 4], [4, 4, 0]]},
    "policies": {"p": {"buffer": {"flat": "16K"}, "compression": "none"}},
    "workload": {"queries": [{"name": "q", "exchanges": [
      {"id": "x", "kind": "hash", "rows": 100000, "row": {"fixed_bytes": 100}, "lz4_ratio": 1,
       "senders": {"hosts": ["s"], "per_host": 1}, "receivers": {"hosts": ["near", "far"], "per_host": 1}}]}]}})";
  const RunResult result = run(json);
  const auto channels = calls_by_channel(json);
  REQUIRE(channels.size() == 2);
  const ChannelCalls* far = nullptr;
  const ChannelCalls* near = nullptr;
  for (const auto& [track, channel] : channels) (channel.name.ends_with("to far") ? far : near) = &channel;
  REQUIRE(far);
  REQUIRE(near);
  // The far channel's calls one after another: each about a 4 ms round trip
  // (plus 20 us latency, 20 us of RPC CPU, some 25 us of wire and 8 us of
  // deserializing: under 2% more).
  const auto far_calls = static_cast<double>(far->rows.size());
  CHECK(result.wall_s >= far_calls * 4e-3);
  CHECK(result.wall_s <= far_calls * 4e-3 * 1.03);
  // The near channel finishes with it.
  CHECK(near->last_answer_us * 1e-6 >= 0.97 * result.wall_s);
  CHECK(result.exchanges.at(0).sender_blocked_s > 0.9 * result.wall_s);
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
      "serialize_row_ns": 0, "deserialize_row_ns": 0, "wire_overhead_bytes": 0},
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
  // Shared, not taken in turn: each sender's last call is answered at the end,
  // where one after the other would finish the first at half the time.
  const auto channels = calls_by_channel(into_one_host(2));
  REQUIRE(channels.size() == 2);
  for (const auto& [track, channel] : channels) {
    CHECK(channel.last_answer_us * 1e-6 == doctest::Approx(two.wall_s).epsilon(0.02));
  }
}

TEST_CASE("a shared core: two sender threads on one core take twice as long") {
  auto scenario = [](int cores) {
    // Serialization, LZ4 and RPC costs made negligible: only producing rows costs CPU.
    return std::string(R"({"name": "cpu", "costs": {"serialize_bytes_per_s": 1e13, "deserialize_bytes_per_s": 1e13,
      "lz4_compress_bytes_per_s": 1e13, "lz4_decompress_bytes_per_s": 1e13, "rpc_cpu_us": 0,
      "serialize_row_ns": 0, "deserialize_row_ns": 0},
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
  const std::string json =
      test::with_value(one_channel(R"({"buffer": {"flat": "16K"}})", 1000), "/workload/queries/0/exchanges/0/consume_rows_per_s", "1e-12");
  CHECK_THROWS_WITH_AS(run(json), doctest::Contains("/exchanges/0/consume_rows_per_s: at 1e-12 rows/s"), InputError);
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

TEST_CASE("a broadcast of a producer's smaller batches: a call per batch per channel") {
  const std::string head = R"({"name": "small-batches", "seed": 3, "cluster": {"hosts": 2, "rtt_ms": {"same_group": 0.1}},
    "policies": {"16K": {"buffer": {"flat": "16K"}}},
    "workload": {"queries": [{"name": "q", "exchanges": [
      {"id": "b", "kind": "broadcast", "rows": 50441, "row": {"fixed_bytes": 29}, "lz4_ratio": 1.0,
       "senders": {"hosts": ["h0"], "per_host": 1})";
  const Scenario smaller = test::scenario_from(head + R"(, "input_batch_rows": 814}]}]}})");
  REQUIRE(smaller.queries[0].exchanges[0].input_batch_rows == 814);
  // ceil(50441 / 814) = 62 batches to each of the 2 receivers, against ceil(50441 / 1024) = 50.
  CHECK(simulate(smaller, smaller.policies.front()).exchanges[0].rpcs == 2 * 62);
  const Scenario whole = test::scenario_from(head + "}]}]}}");
  CHECK(simulate(whole, whole.policies.front()).exchanges[0].rpcs == 2 * 50);
}

}  // namespace
}  // namespace exsim
