// What bounded an exchange (models/results/bound.h): its sender threads' time
// given part by part to its causes, against cases whose bound is known by
// construction, and to the nanosecond where the closed form of
// analytic_test.cpp gives every part.
#include <doctest/doctest.h>

#include <string>

#include "models/results/bound.h"
#include "sim/simulate.h"
#include "tests/sim/analytic_scenarios.h"
#include "tests/test_util.h"

namespace exsim {
namespace {

using test::kCosts;
using test::one_channel;
using test::run;

constexpr const char* kFlat16K = R"({"buffer": {"flat": "16K"}, "compression": "none"})";

TEST_CASE("one latency-bound channel: every part of the sender's time, by hand") {
  // As in analytic_test.cpp: 97 full batches of 1024 rows (102400 B) and one of
  // 672, one RPC in flight over a 0.5 ms RTT. A call lives: its bytes through
  // the NIC (104 B a row + 100 B at 1 B/ns), half the RTT and 20 us of latency
  // to arrive (270 us), the receiver's 10 us of call CPU and 0.5 ns a byte,
  // half the RTT back (250 us).
  const double full_wire = 104 * 1024 + 100, partial_wire = 104 * 672 + 100;
  const double full_recv = 10e3 + 0.5 * 102400, partial_recv = 10e3 + 0.5 * 67200;
  // The thread serializes the next batch (102.4 us) while a call is in flight,
  // then waits for it: a full batch's wait misses the first 102.4 us of its
  // call's transfer, the wait before the partial batch the first 67.2 us; the
  // partial batch's and the end-of-stream's waits are their whole lives.
  const double nic = 96 * (full_wire - 102400) + (full_wire - 67200) + partial_wire + 100;
  const double receiver = 97 * full_recv + partial_recv + 10e3;
  const double round_trips = 99 * 520e3;
  const double sender_cpu = 1e7 /* 1e7 B at 1 ns */ + 99 * 10e3 /* 98 calls and EOS */;

  const RunResult r = run(one_channel(kFlat16K));
  REQUIRE(r.exchanges.size() == 1);
  const TimeByBound& t = r.exchanges[0].sender_time;
  CHECK(t[Bound::kSenderCpu] * 1e9 == doctest::Approx(sender_cpu).epsilon(1e-6));
  CHECK(t[Bound::kNic] * 1e9 == doctest::Approx(nic).epsilon(1e-6));
  CHECK(t[Bound::kReceiver] * 1e9 == doctest::Approx(receiver).epsilon(1e-6));
  CHECK(t[Bound::kRoundTrips] * 1e9 == doctest::Approx(round_trips).epsilon(1e-6));
  CHECK(t[Bound::kProducer] == 0);
  CHECK(t[Bound::kConsumer] == 0);
  // Conserved: one sender's parts add up to the exchange's wall-clock.
  CHECK(t.total() == doctest::Approx(r.exchanges[0].wall_s).epsilon(1e-9));
  CHECK(t.largest() == Bound::kRoundTrips);
  CHECK(t.share(Bound::kRoundTrips) == doctest::Approx(round_trips / (r.wall_s * 1e9)).epsilon(1e-6));
}

// The one channel drained by a consumer of 100k rows a second, behind a receiver queue of `queue`.
std::string slow_consumer(const std::string& queue) {
  return test::with_value(one_channel(R"({"buffer": {"flat": "16K"}, "compression": "none", "receiver_buffer": ")" +
                                      queue + R"("})"),
                          "/workload/queries/0/exchanges/0/consume_rows_per_s", "1e5");
}

// The exchange's bound and its share, in one result of one exchange.
Bound bound_of(const RunResult& r, double* share = nullptr) {
  REQUIRE(r.exchanges.size() == 1);
  const TimeByBound& t = r.exchanges[0].sender_time;
  CHECK(t.total() == doctest::Approx(r.exchanges[0].wall_s).epsilon(1e-6));  // one sender
  if (share) *share = t.share(t.largest());
  return t.largest();
}

TEST_CASE("each bound where it holds by construction") {
  const std::string json = one_channel(kFlat16K);
  double share = 0;
  SUBCASE("round trips: the same channel with a bigger buffer is CPU-bound; with the RTT at 0 too") {
    CHECK(bound_of(run(json)) == Bound::kRoundTrips);
    CHECK(bound_of(run(one_channel(R"({"buffer": {"flat": "16K"}, "compression": "none", "in_flight": 8})"))) ==
          Bound::kSenderCpu);
    CHECK(bound_of(run(json, {"cluster.rtt_ms.same_group=0", "costs.rpc_latency_us=0"})) == Bound::kSenderCpu);
  }
  SUBCASE("producer: an operator of 100k rows a second feeds the sender") {
    const Bound b = bound_of(run(test::with_value(json, "/workload/queries/0/exchanges/0/produce_rows_per_s", "1e5"),
                                 {}), &share);
    CHECK(b == Bound::kProducer);
    CHECK(share > 0.9);  // 1 s of producing against about 70 ms of everything else
  }
  SUBCASE("NIC: 8 Mbit/s, a thousandth of the round trip's bytes per second") {
    CHECK(bound_of(run(json, {"cluster.nic_gbps=0.008"}), &share) == Bound::kNic);
    CHECK(share > 0.9);
  }
  SUBCASE("receiver: 20 ns a byte to deserialize, 2 ms a call against a 0.6 ms round trip") {
    CHECK(bound_of(run(json, {"costs.deserialize_bytes_per_s=5e7"}), &share) == Bound::kReceiver);
    CHECK(share > 0.6);
  }
  SUBCASE("sender CPU: 20 ns a byte to serialize, 2 ms a batch") {
    CHECK(bound_of(run(json, {"costs.serialize_bytes_per_s=5e7"}), &share) == Bound::kSenderCpu);
    CHECK(share > 0.7);
  }
  SUBCASE("consumer: 100k rows a second drain a receiver queue of 1M") {
    const RunResult r = run(slow_consumer("1M"));
    CHECK(r.exchanges[0].deferred_rpcs > 0);
    CHECK(bound_of(r, &share) == Bound::kConsumer);
    CHECK(share > 0.8);
  }
}

TEST_CASE("a consumer that drains its queue after the senders end: the tail is the consumer's") {
  // A queue big enough for every row: no call is held back, the sender ends
  // early, and the consumer's last second is every sender's wait.
  const RunResult r = run(slow_consumer("1G"));
  CHECK(r.exchanges[0].deferred_rpcs == 0);
  double share = 0;
  CHECK(bound_of(r, &share) == Bound::kConsumer);
  CHECK(share > 0.9);
}

TEST_CASE("many senders: the parts add up to no more than every sender's whole exchange") {
  const Scenario s = test::scenario_from(R"({"name": "many", "cluster": {"hosts": 4, "rtt_ms": {"same_group": 0.3}},
    "policies": {"p": {"buffer": {"flat": "16K"}}},
    "workload": {"queries": [{"name": "q", "exchanges": [
      {"id": "x", "kind": "hash", "rows": 2000000, "row": {"fixed_bytes": 40}, "lz4_ratio": 0.5}]}]}})");
  const RunResult r = simulate(s, s.policies[0]);
  const ExchangeResult& x = r.exchanges[0];
  const double senders = 4;
  CHECK(x.sender_time.total() <= senders * x.wall_s * (1 + 1e-9));
  CHECK(x.sender_time.total() >= 0.9 * senders * x.wall_s);  // senders of equal rows end together
}

TEST_CASE("a measured exchange: waits given to the calls' parts in proportion") {
  MeasuredSenderTime m;
  m.senders = 2;
  m.life_s = 10;      // two threads of 5 s
  m.produce_s = 1;
  m.blocked_s = 6;
  m.wake_s = 0.5;
  m.network_s = 8;    // of which 6 imposed round trips: 2 left for the NICs and the RPC layer,
  m.round_trips_s = 6;
  m.nic_busy = 0.75;  // 1.5 of them the NIC's (busy 75% of the time), 0.5 the RPC layer's
  m.receiver_s = 3;   // of which 1 held back
  m.held_s = 1;
  m.drain_s = 0.25;   // the consumers' tail, once per sender
  const TimeByBound t = attribute_measured(m);
  // 5.5 s of waits over 6 + 2 + 2 + 1 = 11 s of call parts: half a second per second.
  CHECK(t[Bound::kProducer] == doctest::Approx(1));
  CHECK(t[Bound::kSenderCpu] == doctest::Approx(3 + 0.25));
  CHECK(t[Bound::kRoundTrips] == doctest::Approx(0.5 + 3));
  CHECK(t[Bound::kNic] == doctest::Approx(0.75));
  CHECK(t[Bound::kReceiver] == doctest::Approx(1));
  CHECK(t[Bound::kConsumer] == doctest::Approx(0.5 + 0.5));
  CHECK(t.total() == doctest::Approx(m.life_s + m.drain_s * m.senders));
  // Timer noise never makes a part negative: a produce time beyond the life is clamped.
  m.produce_s = 20;
  const TimeByBound clamped = attribute_measured(m);
  for (double s : clamped.seconds) CHECK(s >= 0);
  CHECK(clamped[Bound::kSenderCpu] == doctest::Approx(0.25));  // only the RPC layer's part of the waits
}

TEST_CASE("a table's words: the largest part, and the runner-up from 10%") {
  CHECK(to_string(Bound::kRoundTrips) == "round_trips");
  TimeByBound t;
  CHECK(describe_bound(t).empty());
  t[Bound::kNic] = 3;
  t[Bound::kRoundTrips] = 1;
  CHECK(describe_bound(t) == "NIC 75%, round trips 25%");
  t[Bound::kNic] = 10;
  CHECK(describe_bound(t) == "NIC 91%");  // a runner-up under 10% is left out
}

}  // namespace
}  // namespace exsim
