// Conservation, determinism, memory and each policy's effect, end to end.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <vector>

#include "models/results/results.h"
#include "models/results/trace.h"
#include "models/rules/sender_memory.h"
#include "sim/simulate.h"
#include "tests/test_util.h"

namespace exsim {
namespace {

// Every partitioning kind in one query, rows of exactly 30 + 12 B.
std::string all_kinds(const std::string& policy = "{\"compression\": \"none\"}") {
  return std::string(R"({"name": "kinds", "seed": 11,
    "cluster": {"hosts": 4, "groups": {"a": 2, "b": 2}, "rtt_ms": {"same_group": 0.1, "cross_group": 0.5}},
    "mt_dop": 2,
    "policies": {"p": )") + policy + R"(},
    "workload": {"queries": [{"name": "q", "exchanges": [
      {"id": "h", "kind": "hash", "rows": 500000, "row": {"fixed_bytes": 30, "varlen_bytes": 12}, "lz4_ratio": 0.5, "skew": 0.8},
      {"id": "b", "kind": "broadcast", "rows": 50000, "row": {"fixed_bytes": 30, "varlen_bytes": 12}, "lz4_ratio": 0.5,
       "receivers": {"hosts": "all", "per_host": 1}},
      {"id": "r", "kind": "random", "rows": 200000, "row": {"fixed_bytes": 30, "varlen_bytes": 12}, "lz4_ratio": 0.5},
      {"id": "m", "kind": "merge", "rows": 100000, "row": {"fixed_bytes": 30, "varlen_bytes": 12}, "lz4_ratio": 0.5,
       "after": ["h"]}]}]}})";
}

RunResult run(const std::string& json, const std::vector<std::string>& overrides = {}) {
  const Scenario s = test::scenario_from(json, overrides);
  return simulate(s, s.policies[0]);
}

std::map<std::string, ExchangeResult> by_id(const RunResult& r) {
  std::map<std::string, ExchangeResult> out;
  for (const auto& x : r.exchanges) out[x.id] = x;
  return out;
}

TEST_CASE("rows and bytes are conserved for every partitioning kind") {
  const RunResult r = run(all_kinds());
  auto x = by_id(r);
  CHECK(x["h"].rows == 500000);
  CHECK(x["b"].rows == 50000 * 4);  // every receiver gets every row
  CHECK(x["r"].rows == 200000);
  CHECK(x["m"].rows == 100000);
  for (const auto& [id, e] : x) {
    CAPTURE(id);
    // Uncompressed: 42 B of tuple data and 4 B of offset per delivered row.
    CHECK(e.bytes_uncompressed == doctest::Approx(46.0 * static_cast<double>(e.rows)));
    // Without compression the wire carries exactly that plus framing per RPC.
    CHECK(e.bytes_wire == doctest::Approx(e.bytes_uncompressed + 96.0 * static_cast<double>(e.rpcs + e.eos_rpcs)));
  }
  CHECK(x["h"].eos_rpcs == 8 * 8);  // 8 senders x 8 channels
  CHECK(x["b"].eos_rpcs == 8 * 4);
  CHECK(x["m"].eos_rpcs == 8);
  // Broadcast and random send whole 1024-row input batches.
  CHECK(x["r"].rpcs == 8 * ((25000 + 1023) / 1024));
  CHECK(x["b"].rpcs == 4 * 8 * ((6250 + 1023) / 1024));
  CHECK(r.wall_s > 0);
}

TEST_CASE("the same seed gives byte-identical results; another seed does not") {
  const std::string a = results_to_json({run(all_kinds("{}")), run(all_kinds("{\"in_flight\": 2}"))});
  const std::string b = results_to_json({run(all_kinds("{}")), run(all_kinds("{\"in_flight\": 2}"))});
  CHECK(a == b);
  const std::string c = results_to_json({run(all_kinds("{}"), {"seed=12"}), run(all_kinds("{\"in_flight\": 2}"))});
  CHECK(a != c);
}

TEST_CASE("progress reports rise to every input row, and change no result") {
  const Scenario s = test::scenario_from(all_kinds("{}"), {"workload.queries.0.repeat=2"});
  std::vector<double> reports;
  SimulateOptions options;
  options.progress = [&](double fraction) { reports.push_back(fraction); };
  options.progress_events = 1000;
  const RunResult with = simulate(s, s.policies[0], options);
  REQUIRE(reports.size() >= 2);
  CHECK(std::is_sorted(reports.begin(), reports.end()));
  CHECK(reports.front() > 0);
  CHECK(reports.back() <= 1.0);
  CHECK(reports.back() > 0.5);  // the second repetition counts: the fraction is of the whole workload
  CHECK(results_to_json({with}) == results_to_json({simulate(s, s.policies[0])}));
}

TEST_CASE("a trace changes no result: a sender's final answers kept together or one by one") {
  // Untraced, a sender keeps the answers on channels it has flushed, and to
  // its end-of-stream calls, as a count and the latest; traced, it keeps each
  // to draw it. Both must wait for the same call at the same moment.
  const std::vector<std::string> policies = {
      "{}", R"({"in_flight": 2})", R"({"in_flight": 3, "sender_layout": "v4.3"})", R"({"buffer": {"flat": "4K"}})"};
  for (const std::string& policy : policies) {
    CAPTURE(policy);
    // A slow consumer: senders block on full channels and wait at the end.
    // Far hosts: a call to one, answered before the sender's final phase,
    // can come back after every final answer to the near ones.
    for (const std::vector<std::string>& overrides :
         {std::vector<std::string>{"workload.queries.0.exchanges.0.consume_rows_per_s=2e6"},
          std::vector<std::string>{"cluster.rtt_ms.cross_group=5"}}) {
      CAPTURE(overrides.front());
      const Scenario s = test::scenario_from(all_kinds(policy), overrides);
      Trace trace;
      SimulateOptions traced;
      traced.trace = &trace;
      SimulateOptions whole;
      whole.exact = true;
      const RunResult with = simulate(s, s.policies[0], traced);
      CHECK(with.exchanges.at(0).sender_blocked_s > 0);
      CHECK(results_to_json({with}) == results_to_json({simulate(s, s.policies[0], whole)}));
    }
  }
}

TEST_CASE("compression: lz4 shrinks the wire, none skips its CPU, skip_local skips local channels") {
  const RunResult lz4 = run(all_kinds(R"({"compression": "lz4"})"));
  const RunResult none = run(all_kinds(R"({"compression": "none"})"));
  const RunResult skip = run(all_kinds(R"({"compression": "lz4_skip_local"})"));
  CHECK(none.cpu_s.compress == 0);
  CHECK(none.cpu_s.decompress == 0);
  CHECK(lz4.bytes_wire < 0.6 * none.bytes_wire);
  CHECK(lz4.cpu_s.compress > 0);
  // 1 of 4 hosts is local to each hash/random sender: about a quarter less LZ4 work.
  CHECK(skip.cpu_s.compress < 0.9 * lz4.cpu_s.compress);
  CHECK(skip.bytes_wire > lz4.bytes_wire);
  CHECK(skip.bytes_wire < none.bytes_wire);
  // Incompressible rows (ratio 1): LZ4 runs, but its output is no smaller and is
  // not kept (outbound-row-batch.cc:76-82): the attempt's CPU is spent, the wire
  // carries what it would without LZ4, and nothing is decompressed.
  const std::string incompressible = "workload.queries.0.exchanges.*.lz4_ratio=1";
  const RunResult tried = run(all_kinds(R"({"compression": "lz4"})"), {incompressible});
  const RunResult plain = run(all_kinds(R"({"compression": "none"})"), {incompressible});
  CHECK(tried.cpu_s.compress == doctest::Approx(lz4.cpu_s.compress));
  CHECK(tried.bytes_wire == plain.bytes_wire);
  CHECK(tried.cpu_s.decompress == 0);
}

TEST_CASE("an exchange waits for those it comes after; independent ones run together; queries in turn") {
  // Exchanges on disjoint hosts (h0 -> h1, h2 -> h3), so that running together
  // costs nothing: without `after` the query takes as long as the longer one;
  // with b after a, b starts when a ends and the query takes both in turn.
  auto scenario = [](const std::string& after) {
    const std::string row = R"("rows": 200000, "row": {"fixed_bytes": 100}, "lz4_ratio": 1)";
    return R"({"name": "dag", "cluster": {"hosts": 4, "rtt_ms": {"same_group": 0.2}},
      "policies": {"p": {"buffer": {"flat": "16K"}}},
      "workload": {"queries": [{"name": "q", "exchanges": [
        {"id": "a", "kind": "hash", )" + row + R"(, "senders": {"hosts": ["h0"]}, "receivers": {"hosts": ["h1"]}},
        {"id": "b", "kind": "hash", )" + row + after + R"(, "senders": {"hosts": ["h2"]}, "receivers": {"hosts": ["h3"]}}]},
        {"name": "q2", "exchanges": [
        {"id": "c", "kind": "hash", )" + row + R"(, "senders": {"hosts": ["h0"]}, "receivers": {"hosts": ["h1"]}}]}]}})";
  };
  const RunResult together = run(scenario(""));
  const RunResult in_turn = run(scenario(R"(, "after": ["a"])"));
  auto wall_of = [](const RunResult& r, const std::string& id) {
    for (const auto& x : r.exchanges) {
      if (x.id == id) return x.wall_s;
    }
    FAIL("no exchange " << id);
    return 0.0;
  };
  CHECK(together.queries[0].wall_s == doctest::Approx(std::max(wall_of(together, "a"), wall_of(together, "b"))));
  CHECK(in_turn.queries[0].wall_s == doctest::Approx(wall_of(in_turn, "a") + wall_of(in_turn, "b")));
  CHECK(in_turn.queries[0].wall_s > 1.8 * together.queries[0].wall_s);
  // Queries one after another: the run is their sum.
  CHECK(in_turn.wall_s == doctest::Approx(in_turn.queries[0].wall_s + in_turn.queries[1].wall_s));
}

TEST_CASE("broadcast per_channel serializes once per channel (IMPALA-6041)") {
  auto broadcast_only = [](const std::string& mode) {
    return std::string(R"({"name": "bc", "cluster": {"hosts": 5, "rtt_ms": {"same_group": 0.1}},
      "policies": {"p": {"broadcast_serialize": ")") + mode + R"("}},
      "workload": {"queries": [{"name": "q", "exchanges": [
        {"id": "b", "kind": "broadcast", "rows": 402000, "row": {"fixed_bytes": 100}, "lz4_ratio": 0.5,
         "senders": {"hosts": ["h0"], "per_host": 1}, "receivers": {"hosts": "all", "per_host": 1}}]}]}})";
  };
  // Without the faults of the larger memory per_channel holds, which serialize would count too.
  const RunResult once = run(broadcast_only("once"), {"costs.fresh_memory_byte_ns=0"});
  const RunResult per_channel = run(broadcast_only("per_channel"), {"costs.fresh_memory_byte_ns=0"});
  CHECK(per_channel.cpu_s.serialize / once.cpu_s.serialize == doctest::Approx(5.0));
  CHECK(per_channel.cpu_s.compress / once.cpu_s.compress == doctest::Approx(5.0));
  CHECK(per_channel.wall_s > 2 * once.wall_s);
  CHECK(per_channel.rpcs == once.rpcs);
}

TEST_CASE("bigger buffers mean fewer, larger RPCs; a budget sizes by channel count") {
  // 5M unskewed rows: about 78K rows per (sender, channel), so partial batches hardly count.
  const std::vector<std::string> many{"workload.queries.0.exchanges.0.rows=5000000",
                                      "workload.queries.0.exchanges.0.skew=0"};
  const RunResult small = run(all_kinds(R"({"buffer": {"flat": "16K"}})"), many);
  const RunResult big = run(all_kinds(R"({"buffer": {"flat": "64K"}})"), many);
  auto s = by_id(small), b = by_id(big);
  CHECK(static_cast<double>(b["h"].rpcs) == doctest::Approx(static_cast<double>(s["h"].rpcs) / 4.0).epsilon(0.05));
  CHECK(b["h"].batch_bytes_mean == doctest::Approx(4 * s["h"].batch_bytes_mean).epsilon(0.05));
  CHECK(b["r"].rpcs == s["r"].rpcs);  // whole batches: the buffer size does not apply
  // Budget 1M over 8 channels: clamp(1M / 16, 16K, 256K) = 64K per channel, flushed by bytes.
  const RunResult budget = run(all_kinds(R"({"buffer": {"budget": "1M", "min": "16K", "max": "256K"}})"), many);
  auto g = by_id(budget);
  CHECK(g["h"].batch_bytes_mean == doctest::Approx(65536.0 * 46 / 42).epsilon(0.02));
}

TEST_CASE("a latency-bound exchange gets faster with bigger buffers and more RPCs in flight") {
  const Scenario s = load_scenario(std::string(EXSIM_SOURCE_DIR) + "/scenarios/default.json");
  std::map<std::string, RunResult> r;
  for (const auto& p : s.policies) r[p.name] = simulate(s, p);
  CHECK(r["64K"].wall_s < 0.9 * r["16K"].wall_s);
  CHECK(r["64K"].rpcs < r["16K"].rpcs / 3);
  CHECK(r["128K"].wall_s <= r["64K"].wall_s);
  Policy two = s.policies[0];
  two.in_flight = 2;
  CHECK(simulate(s, two).wall_s < 0.9 * r["16K"].wall_s);
}

// One hash sender on h0 feeding 4 receiver hosts, rows of exactly 100 B, LZ4 on.
std::string memory_case(const std::string& flat) {
  return std::string(R"({"name": "mem", "cluster": {"hosts": 5, "rtt_ms": {"same_group": 0.1}},
    "policies": {"p": {"buffer": {"flat": ")") + flat + R"("}, "compression": "lz4"}},
    "workload": {"queries": [{"name": "q", "exchanges": [
      {"id": "x", "kind": "hash", "rows": 1000000, "row": {"fixed_bytes": 100}, "lz4_ratio": 0.5,
       "senders": {"hosts": ["h0"], "per_host": 1}, "receivers": {"hosts": ["h1", "h2", "h3", "h4"], "per_host": 1}}]}]}})";
}

TEST_CASE("sender memory of a known configuration equals the formula") {
  // HEAD, in_flight 1, LZ4 on: per channel a collector and an outbound buffer,
  // which trade places on every send and pass through the shared LZ4 scratch, so
  // each ends with the room of LZ4bound(B) grown by doubling from 256 B, and
  // offsets for K rows grown by doubling from 1; plus the scratch itself, which
  // the static figures count so too, but which is first allocated at the bound
  // exactly, and keeps it while no batch outgrows it (every batch the same here).
  // 16K: K = 163, B = 16300, bound 16379 -> 16384 B of data, 256 offsets.
  auto formula = [](long rows) {
    auto pow2 = [](long n, long from) {
      long c = from;
      while (c < n) c *= 2;
      return c;
    };
    const long b = rows * 100, data = pow2(b + b / 255 + 16, 256), offsets = 4 * pow2(rows, 1);
    return 4 * 2 * (data + offsets) + data;
  };
  // The peak: the scratch at the bound itself, not the room doubling gives it.
  auto peak = [&](long rows) {
    auto pow2 = [](long n) {
      long c = 256;
      while (c < n) c *= 2;
      return c;
    };
    const long b = rows * 100, bound = b + b / 255 + 16;
    return formula(rows) - pow2(bound) + bound;
  };
  CHECK(formula(163) == 4 * 2 * (16384 + 1024) + 16384);
  const RunResult r = run(memory_case("16K"));
  CHECK(r.hosts[0].sender_peak_bytes == 4 * 2 * (16384 + 1024) + 16379);
  CHECK(peak(163) == 4 * 2 * (16384 + 1024) + 16379);
  CHECK(r.hosts[0].sender_expected_bytes == formula(163));
  CHECK(r.hosts[0].sender_worst_bytes == formula(163));  // fixed-size rows: no worse case
  CHECK(r.hosts[1].sender_peak_bytes == 0);
  // The planner's estimate, 4 x 2 x 2 x 1024 x 104 = 1703936, covers 16K but not 256K.
  CHECK(r.planner.senders == 1);
  CHECK(r.planner.over_estimate == 0);
  // 256K: K = 2621, B = 262100 fits 256 KiB, but its LZ4 bound does not: 512 KiB.
  const RunResult big = run(memory_case("256K"));
  CHECK(formula(2621) == 4 * 2 * (524288 + 4 * 4096) + 524288);
  CHECK(big.hosts[0].sender_peak_bytes == peak(2621));
  CHECK(peak(2621) == 4 * 2 * (524288 + 4 * 4096) + 263143);
  CHECK(big.planner.over_estimate == 1);
  CHECK(big.planner.by_kind.size() == 1);
  CHECK(big.planner.by_kind.at("hash").over_estimate == 1);
  CHECK(big.planner.max_over_bytes == peak(2621) - 1703936);
}

TEST_CASE("channels whose only batch left on a never-used buffer hold that one buffer, and the scratch") {
  // memory_case with 200 rows to two receivers: two channels (one alone would
  // send whole batches through the shared buffer), about 100 rows each, one
  // partial batch each, sent by the final flush. Each collector trades its
  // batch for the channel's outbound buffer, never used and so empty, and no
  // row follows: one buffer a channel holds its batch, at the room of its LZ4
  // bound (under 16 KiB) with 128 offsets; and the LZ4 scratch, at the first
  // batch's bound, or twice that if the second outgrew it. Counting the empty
  // collector as a buffer, or the final batches bypassing the scratch, fails it.
  std::string text = memory_case("16K");
  const auto swap = [&](const std::string& from, const std::string& to) {
    text.replace(text.find(from), from.size(), to);
  };
  swap("\"rows\": 1000000", "\"rows\": 200");
  swap("[\"h1\", \"h2\", \"h3\", \"h4\"]", "[\"h1\", \"h2\"]");
  const RunResult r = run(text);
  REQUIRE(r.rpcs == 2);
  const Bytes scratch = r.hosts[0].sender_peak_bytes - 2 * (16384 + 4 * 128);
  CHECK(scratch >= lz4_bound(80 * 100));
  CHECK(scratch <= 2 * lz4_bound(120 * 100));
}

TEST_CASE("var-len rows: the worst case takes every row at its largest, and bounds the peak") {
  // The formula case with var-len bytes uniform on [0, 50] (mean 25) and at most
  // 200 a row. fixed_len still makes batches of K = 16384 / 100 = 163 rows.
  // Expected, at the mean row (125 B): B = 20375, LZ4 bound 20470 -> 32768 B.
  // Worst, at the largest (300 B): B = 48900, bound 49107 -> 65536 B.
  // Offsets for 163 rows: 4 x 256 B. Four channels of two buffers, plus the scratch.
  const std::string json = test::with_value(memory_case("16K"), "/workload/queries/0/exchanges/0/row/varlen_bytes",
                                            R"({"dist": "uniform", "mean": 25, "max": 200})");
  const RunResult r = run(json);
  CHECK(r.hosts[0].sender_expected_bytes == 4 * 2 * (32768 + 1024) + 32768);
  CHECK(r.hosts[0].sender_worst_bytes == 4 * 2 * (65536 + 1024) + 65536);
  // Batches of 163 rows never come near 300 B a row on average: the peak is the
  // expected figure's channels, and below the worst. Its scratch: the first
  // batch's LZ4 bound, doubled as a later, larger batch outgrew it (batches
  // vary with their rows' var-len bytes), where the expected figure counts 32 KiB.
  CHECK(r.hosts[0].sender_peak_bytes <= r.hosts[0].sender_worst_bytes);
  const Bytes scratch = r.hosts[0].sender_peak_bytes - 4 * 2 * (32768 + 1024);
  CHECK(scratch % 2 == 0);
  const Bytes first = scratch / 2, first_rows = (first - 16) * 255 / 256;
  CHECK(first_rows > 163 * 120);  // a batch near the mean, 163 x 125 B
  CHECK(first_rows < 163 * 130);
  // Over every kind, skewed, at MT_DOP 2 and 2 in flight: no host's peak passes its worst case.
  const RunResult kinds = run(all_kinds(R"({"in_flight": 2})"),
                              {R"(workload.queries.0.exchanges.*.row.varlen_bytes={"dist": "exponential", "mean": 12, "max": 400})"});
  for (const auto& host : kinds.hosts) {
    CAPTURE(host.name);
    CHECK(host.sender_peak_bytes <= host.sender_worst_bytes);
    CHECK(host.sender_expected_bytes < host.sender_worst_bytes);
  }
}

TEST_CASE("incompressible rows: LZ4's output is not kept, and only its scratch grows") {
  // The formula case with rows of 128 B: batches of 128 rows, exactly 16 KiB.
  // LZ4's bound, 16464 B, takes a buffer to 32 KiB, but at lz4_ratio 1 the
  // output is no smaller and is dropped (outbound-row-batch.cc:76-82): the
  // batch buffers keep their 16 KiB and only the shared scratch has 32 KiB.
  // Four channels of two buffers, 128 offsets of 4 B each.
  std::string json = test::with_value(memory_case("16K"), "/workload/queries/0/exchanges/0/row/fixed_bytes", "128");
  json = test::with_value(json, "/workload/queries/0/exchanges/0/lz4_ratio", "1");
  const RunResult r = run(json);
  // Observed, the scratch holds the bound exactly (every batch the same); the
  // static figure counts the room doubling gives.
  CHECK(r.hosts[0].sender_peak_bytes == 4 * 2 * (16384 + 512) + 16464);
  CHECK(r.hosts[0].sender_expected_bytes == 4 * 2 * (16384 + 512) + 32768);
  // Compressible, the same batches take the scratch's room in every buffer.
  json = test::with_value(json, "/workload/queries/0/exchanges/0/lz4_ratio", "0.5");
  const RunResult kept = run(json);
  CHECK(kept.hosts[0].sender_peak_bytes == 4 * 2 * (32768 + 512) + 16464);
  CHECK(kept.hosts[0].sender_expected_bytes == 4 * 2 * (32768 + 512) + 32768);
}

TEST_CASE("the sum of sender peaks adds each sender at its own peak, per query") {
  // Two copies of the formula case on h0, one after the other: the host's
  // concurrent peak is one sender's, the sum of peaks is two; a second query of
  // the same shape leaves the largest sum over queries unchanged.
  const std::string x = R"({"kind": "hash", "rows": 1000000, "row": {"fixed_bytes": 100}, "lz4_ratio": 0.5,
       "senders": {"hosts": ["h0"], "per_host": 1}, "receivers": {"hosts": ["h1", "h2", "h3", "h4"], "per_host": 1}})";
  auto exchange = [&](const std::string& id, const std::string& after) {
    return "{\"id\": \"" + id + "\", " + (after.empty() ? "" : "\"after\": [\"" + after + "\"], ") + x.substr(1);
  };
  auto query = [&](const std::string& name) {
    return "{\"name\": \"" + name + "\", \"exchanges\": [" + exchange("a", "") + ", " + exchange("b", "a") + "]}";
  };
  const std::string json = R"({"name": "sum", "cluster": {"hosts": 5, "rtt_ms": {"same_group": 0.1}},
    "policies": {"p": {"buffer": {"flat": "16K"}, "compression": "lz4"}},
    "workload": {"queries": [)" + query("q1") + ", " + query("q2") + "]}}";
  const RunResult r = run(json);
  const Bytes one = 4 * 2 * (16384 + 1024) + 16379;  // the formula case's sender at 16K
  CHECK(r.hosts[0].sender_peak_bytes == one);
  CHECK(r.hosts[0].sender_peak_sum_bytes == 2 * one);
  CHECK(r.hosts[1].sender_peak_sum_bytes == 0);
}

TEST_CASE("more RPCs in flight and the v4.3 layout hold more sender memory") {
  // Without the cache models, whose misses grow with the buffers each layout holds.
  const RunResult head = run(memory_case("16K"), {"costs.cache_bytes=0", "costs.core_cache_bytes=0"});
  const RunResult two =
      run(memory_case("16K"), {"policies.p.in_flight=2", "costs.cache_bytes=0", "costs.core_cache_bytes=0"});
  const RunResult v43 = run(memory_case("16K"),
                            {"policies.p.sender_layout=\"v4.3\"", "costs.cache_bytes=0", "costs.core_cache_bytes=0"});
  CHECK(two.hosts[0].sender_expected_bytes > head.hosts[0].sender_expected_bytes);
  CHECK(two.hosts[0].sender_peak_bytes > head.hosts[0].sender_peak_bytes);
  CHECK(two.hosts[0].sender_peak_bytes <= two.hosts[0].sender_expected_bytes);
  CHECK(v43.hosts[0].sender_peak_bytes > head.hosts[0].sender_peak_bytes);
  // v4.3 alternates two outbound batches even with one RPC in flight: every channel
  // ends up holding them all, as the static model assumes.
  CHECK(v43.hosts[0].sender_peak_bytes == v43.hosts[0].sender_expected_bytes);
  // Rows copied twice, hashed once: the reference profile routes 2e8 rows/s, 1M rows.
  const double routing_s = 1e6 / 2e8;
  CHECK(v43.cpu_s.serialize == doctest::Approx(2 * head.cpu_s.serialize - routing_s));
}

TEST_CASE("mt_dop multiplies channels and sender memory") {
  const Scenario s = load_scenario(std::string(EXSIM_SOURCE_DIR) + "/scenarios/default.json", {"mt_dop=4"});
  const Scenario base = load_scenario(std::string(EXSIM_SOURCE_DIR) + "/scenarios/default.json");
  const RunResult r4 = simulate(s, s.policies[0]);
  const RunResult r0 = simulate(base, base.policies[0]);
  // 4 instances per host, each with 4x the channels: about 16x the expected memory.
  CHECK(static_cast<double>(r4.hosts[0].sender_expected_bytes) ==
        doctest::Approx(16.0 * static_cast<double>(r0.hosts[0].sender_expected_bytes)).epsilon(0.1));
}

}  // namespace
}  // namespace exsim

namespace exsim {
namespace {

TEST_CASE("every shipped scenario loads, simulates and delivers every row") {
  int scenarios = 0;
  for (const auto& entry : std::filesystem::directory_iterator(std::string(EXSIM_SOURCE_DIR) + "/scenarios")) {
    if (entry.path().extension() != ".json") continue;
    CAPTURE(entry.path().string());
    const Scenario s = load_scenario(entry.path().string());
    for (const auto& policy : s.policies) {
      CAPTURE(policy.name);
      const RunResult r = simulate(s, policy);
      CHECK(r.wall_s > 0);
      std::size_t i = 0;
      for (const auto& q : s.queries) {
        for (int rep = 0; rep < q.repeat; ++rep) {
          for (const auto& x : q.exchanges) {
            REQUIRE(i < r.exchanges.size());
            const std::int64_t copies = x.kind == PartitionKind::kBroadcast ? x.receivers.instances() : 1;
            CHECK(r.exchanges[i].rows == x.rows * copies);
            ++i;
          }
        }
      }
      CHECK(i == r.exchanges.size());
    }
    ++scenarios;
  }
  CHECK(scenarios >= 5);
}

}  // namespace
}  // namespace exsim
