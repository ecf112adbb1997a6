// A call's time outside the network, against closed forms: the receiver's
// deserialization per batch, its host's service threads, and the blocked
// sender's wake-up (docs/simulator.md, "An RPC"). The scenarios and their costs
// are those of analytic_test.cpp (tests/sim/analytic_scenarios.h).
#include <doctest/doctest.h>

#include <string>

#include "tests/sim/analytic_scenarios.h"

namespace exsim {
namespace {

using test::kCosts;
using test::one_channel;
using test::run;

TEST_CASE("deserialization per batch: once per TransmitData call, in every round of a latency-bound channel") {
  // 98 batches (97 full, 1 partial); end-of-stream carries none. Each costs 40 us
  // more on the receiver, inside its round trip, so the run takes 98 x 40 us more.
  const std::string policy = R"({"buffer": {"flat": "16K"}, "compression": "none"})";
  const RunResult none = run(one_channel(policy));
  const RunResult per_batch = run(one_channel(policy), {"costs.deserialize_batch_us=40"});
  CHECK(per_batch.rpcs == 98);
  CHECK((per_batch.cpu_s.deserialize - none.cpu_s.deserialize) == doctest::Approx(98 * 40e-6));
  CHECK((per_batch.wall_s - none.wall_s) * 1e9 == doctest::Approx(98 * 40e3).epsilon(1e-4));
  CHECK(per_batch.rpc_receiver.p50_us - none.rpc_receiver.p50_us == doctest::Approx(40).epsilon(0.2));  // two 3% buckets
}

TEST_CASE("a blocked sender's wake-up lengthens each of its waits by the same amount") {
  // The one-channel run (analytic_test.cpp, its closed form) waits 99 times:
  // batches 2 to 97 each for the one before, the partial batch for the last
  // full one, then (FlushFinal) for the partial batch and for end-of-stream.
  // Each wait now ends 30 us after the response that frees the channel.
  const std::string policy = R"({"buffer": {"flat": "16K"}, "compression": "none"})";
  const RunResult none = run(one_channel(policy));
  const RunResult woken = run(one_channel(policy), {"costs.sender_wake_us=30"});
  CHECK(woken.rpcs == none.rpcs);
  CHECK((woken.wall_s - none.wall_s) * 1e9 == doctest::Approx(99 * 30e3).epsilon(1e-4));
  CHECK(woken.sender_wake.p50_us == doctest::Approx(30).epsilon(0.03));
  CHECK(none.sender_wake.p50_us == 0);
  // Neither Impala's network time nor its receiver time contains it.
  CHECK(woken.rpc_network.mean_us == doctest::Approx(none.rpc_network.mean_us));
  CHECK(woken.rpc_receiver.mean_us == doctest::Approx(none.rpc_receiver.mean_us));
}

TEST_CASE("one service thread takes the calls of two senders in turn: its work bounds the run") {
  // Senders on s0 and s1, 100000 rows each, into one receiver on r; receiver
  // work is slow: 20 ns a byte, so a full batch's call takes 10 us of RPC CPU +
  // 102400 B x 20 ns = 2.058 ms and the partial one (672 rows) 1.354 ms, against
  // a round trip of about 0.6 ms. With one service thread it runs every call in
  // turn and is never idle but for the first arrival and the last response:
  // the run takes its work, 2 x (97 x 2.058 + 1.354) ms + 2 end-of-stream
  // calls' 10 us, plus at most a few round trips.
  const std::string json = std::string(R"({"name": "service", )") + kCosts + R"(,
    "cluster": {"hosts": [{"name": "r", "group": "a"}, {"name": "s0", "group": "a"}, {"name": "s1", "group": "a"}],
                "nic_gbps": 8, "rtt_ms": {"same_group": 0.5}},
    "policies": {"p": {"buffer": {"flat": "16K"}, "compression": "none"}},
    "workload": {"queries": [{"name": "q", "exchanges": [
      {"id": "x", "kind": "hash", "rows": 200000, "row": {"fixed_bytes": 100}, "lz4_ratio": 1,
       "senders": {"hosts": ["s0", "s1"], "per_host": 1}, "receivers": {"hosts": ["r"], "per_host": 1}}]}]}})";
  const RunResult one = run(json, {"costs.deserialize_bytes_per_s=5e7", "costs.service_threads=1"});
  const RunResult many = run(json, {"costs.deserialize_bytes_per_s=5e7"});  // one per core: 16
  const double work_ms = 2 * (97 * 2.058 + 1.354) + 0.02;
  CHECK(one.rpcs == many.rpcs);
  CHECK(one.wall_s * 1e3 >= work_ms);
  CHECK(one.wall_s * 1e3 <= work_ms + 3);
  // With a thread each, the senders' calls do not wait for each other: each
  // sender's 98 rounds of 2.058 ms of receiver work, a round trip, 10 us of
  // call CPU and its batch through r's NIC at half rate (both send together):
  // about 97 x 2.801 ms + the partial batch's round, 275 ms.
  CHECK(many.wall_s * 1e3 < 0.72 * work_ms);
  // Waiting for the thread is receiver time, as Impala counts it (arrival to response).
  CHECK(many.rpc_receiver.p50_us == doctest::Approx(2058).epsilon(0.03));
  CHECK(one.rpc_receiver.p50_us > 1.5 * many.rpc_receiver.p50_us);
  // Network time: a batch of 106596 B on the wire, the RTT and 20 us. Served in
  // turn, the senders' calls travel apart, each at the NIC's whole 1 B/ns; with
  // a thread each they travel together, at half of r's inbound NIC each.
  CHECK(one.rpc_network.p50_us == doctest::Approx(106.6 + 520).epsilon(0.03));
  CHECK(many.rpc_network.p50_us == doctest::Approx(2 * 106.6 + 520).epsilon(0.03));
}

TEST_CASE("a call's part on the sender's own thread is the query's CPU, the rest the RPC layer's; the time is the same") {
  // 98 batches and end-of-stream: 99 calls from s, each 10 us a side
  // (rpc_cpu_us), the bytes' CPU free. Of the sending side, rpc_caller_cpu_us
  // is counted as the query's thread's (what Impala's TotalCpuTime counts), at
  // most the whole side; the receiving side is all the RPC layer's.
  const std::string policy = R"({"buffer": {"flat": "16K"}, "compression": "none"})";
  const RunResult none = run(one_channel(policy), {"costs.rpc_caller_cpu_us=0"});
  const RunResult part = run(one_channel(policy), {"costs.rpc_caller_cpu_us=4"});
  const RunResult beyond = run(one_channel(policy), {"costs.rpc_caller_cpu_us=50"});
  CHECK(none.cpu_s.call == 0);
  CHECK(none.cpu_s.rpc == doctest::Approx(2 * 99 * 10e-6));
  CHECK(part.cpu_s.call == doctest::Approx(99 * 4e-6));
  CHECK(part.cpu_s.rpc == doctest::Approx(99 * 16e-6));
  CHECK(beyond.cpu_s.call == doctest::Approx(99 * 10e-6));
  CHECK(beyond.cpu_s.rpc == doctest::Approx(99 * 10e-6));
  for (const RunResult* r : {&part, &beyond}) {
    CHECK(r->wall_s == none.wall_s);
    CHECK(r->cpu_s.call + r->cpu_s.rpc == doctest::Approx(none.cpu_s.rpc));
  }
}

}  // namespace
}  // namespace exsim
