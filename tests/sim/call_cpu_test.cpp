// A call's CPU, against closed forms: shared by the calls on its connection
// (down to rpc_cpu_busy_us), and that of a call that waited for
// its receiver's service thread (rpc_cpu_queued_us) (docs/simulator.md, "An
// RPC"). The scenarios and their costs are those of analytic_test.cpp
// (tests/sim/analytic_scenarios.h).
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include <fmt/format.h>

#include "tests/sim/analytic_scenarios.h"

namespace exsim {
namespace {

using test::one_channel;
using test::run;

// Four sender instances on host s, each with one channel to r and 4 calls in
// flight: their calls share the connection s -> r.
std::string four_senders() {
  return test::with_value(one_channel(R"({"in_flight": 4, "compression": "none"})"),
                          "/workload/queries/0/exchanges/0/senders/per_host", "4");
}

// One channel of 16K batches, `in_flight` calls at once, into a receiver
// that deserializes at 100 ns a byte (1.6 ms a batch).
std::string slow_receiver(int in_flight) {
  return test::with_value(
      one_channel(fmt::format(R"({{"buffer": {{"flat": "16K"}}, "in_flight": {}, "compression": "none"}})", in_flight)),
      "/costs/deserialize_bytes_per_s", "1e7");
}

TEST_CASE("calls in flight together on a connection share the per-call CPU down to rpc_cpu_busy_us") {
  // rpc_cpu_us 10 alone; rpc_cpu_busy_us 2 among many: a call among k in flight
  // on its connection (from its host to the channel's), which share its system
  // calls and wake-ups, costs 2 + 8 / k us a side. Calls on other connections
  // share nothing.
  auto with_busy = [](const std::string& json) { return test::with_value(json, "/costs/rpc_cpu_busy_us", "2"); };
  // One sender, 4 in flight on its one channel (latency-bound: the window is
  // always full): each call leaves with the other 3 on the connection, and is
  // read among them, so 2 + 8 / 4 = 4 us a side where alone it cost 10. Only
  // the first three calls and the end-of-stream go with fewer.
  const auto call_cpu = [](const RunResult& r) { return r.cpu_s.rpc + r.cpu_s.call; };
  const std::string one = one_channel(R"({"in_flight": 4, "compression": "none"})", 1000000);
  CHECK(call_cpu(run(with_busy(one))) == doctest::Approx(0.4 * call_cpu(run(one))).epsilon(0.01));
  // Four sender instances on host s, each with one channel to r: their calls
  // share the connection s -> r. Less RPC CPU, but never below the floor of 2 us.
  const std::string four = four_senders();
  const RunResult alone = run(four);
  const RunResult shared = run(with_busy(four));
  CHECK(shared.rpcs == alone.rpcs);
  CHECK(call_cpu(shared) < 0.4 * call_cpu(alone));
  CHECK(call_cpu(shared) > 0.2 * call_cpu(alone));

  // One call in flight a sender, one sender on each of four hosts, all into
  // host r: no two calls share a connection, so every call costs 10 us a side
  // on both sides, as without the figure: r reads each connection's call apart.
  const std::string single = one_channel(R"({"in_flight": 1, "compression": "none"})");
  const std::vector<std::string> spread{
      R"(cluster.hosts=[{"name": "s0", "group": "a"}, {"name": "s1", "group": "a"}, {"name": "s2", "group": "a"},
                        {"name": "s3", "group": "a"}, {"name": "r", "group": "a"}])",
      R"(workload.queries.0.exchanges.0.senders={"hosts": ["s0", "s1", "s2", "s3"], "per_host": 1})"};
  const RunResult apart = run(single, spread);
  const RunResult together = run(with_busy(single), spread);
  CHECK(together.rpcs == apart.rpcs);
  CHECK(together.cpu_s.rpc == doctest::Approx(apart.cpu_s.rpc).epsilon(1e-9));

  // One sender whose two channels go to two hosts, 4 in flight on each: its
  // calls to one host never travel with those to the other, so the calls to
  // each cost what one channel's alone do (4 us a side), not less.
  const std::vector<std::string> two_hosts{
      R"(cluster.hosts=[{"name": "s", "group": "a"}, {"name": "r0", "group": "a"}, {"name": "r1", "group": "a"}])",
      R"(workload.queries.0.exchanges.0.receivers={"hosts": ["r0", "r1"], "per_host": 1})"};
  CHECK(call_cpu(run(with_busy(one), two_hosts)) == doctest::Approx(0.4 * call_cpu(run(one, two_hosts))).epsilon(0.01));
}

TEST_CASE("without rpc_cpu_busy_us no call's CPU depends on the calls sharing its connection, and none are counted") {
  // Without the figure a sender keeps no per-host counts nor response times
  // (CostRates::calls_share). With it a hair below rpc_cpu_us the counts are
  // kept and every call's share of the difference is a millionth of a
  // nanosecond, which no step's rounding to the nanosecond keeps: the same
  // run. Four senders on s into r, 4 in flight each, share the connection s -> r.
  const std::string four = four_senders();
  const RunResult uncounted = run(four);
  const RunResult counted = run(test::with_value(four, "/costs/rpc_cpu_busy_us", "9.999999999"));
  CHECK(counted.rpcs == uncounted.rpcs);
  CHECK(counted.wall_s == uncounted.wall_s);
  CHECK(counted.exchanges.at(0).sender_blocked_s == uncounted.exchanges.at(0).sender_blocked_s);
  CHECK(counted.cpu_s.rpc == doctest::Approx(uncounted.cpu_s.rpc).epsilon(1e-9));
  // And a figure well below rpc_cpu_us does move them (the counts are read).
  CHECK(run(test::with_value(four, "/costs/rpc_cpu_busy_us", "2")).wall_s != uncounted.wall_s);
}

TEST_CASE("a call that waited for its receiver's service thread costs rpc_cpu_queued_us on the receiving side") {
  // One service thread on r, whose deserialization at 100 ns a byte (1.6 ms a
  // 16K batch) outlasts the round trip (1 ms with latency and the sender's
  // work): with 4 in flight, every data call but the first arrives while the
  // thread is busy with another, and waits. The end of stream goes after the
  // last answer, to a thread idle again. Each waiting call's receiving side
  // costs 3 us in place of 10; the sending sides are unchanged.
  const std::string slow = slow_receiver(4);
  const std::vector<std::string> one_thread{"costs.service_threads=1"};
  const RunResult woken = run(slow, one_thread);
  const RunResult queued = run(test::with_value(slow, "/costs/rpc_cpu_queued_us", "3"), one_thread);
  REQUIRE(queued.rpcs == woken.rpcs);
  CHECK(woken.rpcs == 98);
  CHECK((woken.cpu_s.rpc - queued.cpu_s.rpc) * 1e9 == doctest::Approx(97 * 7e3).epsilon(1e-6));
  CHECK(queued.cpu_s.call == woken.cpu_s.call);
  // The service thread bounds the run: each of the 97 waits ends 7 us sooner.
  CHECK((woken.wall_s - queued.wall_s) * 1e9 == doctest::Approx(97 * 7e3).epsilon(0.02));

  // One in flight: no call ever finds the thread busy, and the figure changes nothing.
  const std::string single = slow_receiver(1);
  const RunResult alone = run(single, one_thread);
  const RunResult alone_queued = run(test::with_value(single, "/costs/rpc_cpu_queued_us", "3"), one_thread);
  CHECK(alone_queued.cpu_s.rpc == alone.cpu_s.rpc);
  CHECK(alone_queued.wall_s == alone.wall_s);
}

TEST_CASE("calls that share a connection, or wait for a busy thread, never cost more than a call alone") {
  // rpc_cpu_us 10: a range's end (or rpc_cpu_us moved below a calibrated
  // figure) may put the figures above it, where they are rpc_cpu_us: the run
  // without them, exactly. Below it they move the run.
  const std::string four = four_senders();
  const RunResult none = run(four);
  for (const char* above : {"10", "25"}) {
    CAPTURE(above);
    const RunResult busy = run(test::with_value(four, "/costs/rpc_cpu_busy_us", above));
    CHECK(busy.wall_s == none.wall_s);
    CHECK(busy.cpu_s.rpc == none.cpu_s.rpc);
    CHECK(busy.exchanges.at(0).sender_blocked_s == none.exchanges.at(0).sender_blocked_s);
  }
  CHECK(run(test::with_value(four, "/costs/rpc_cpu_busy_us", "9")).cpu_s.rpc < none.cpu_s.rpc);

  // The receiving side of the calls that wait (the case above): 25 us is 10.
  const std::string slow = slow_receiver(4);
  const std::vector<std::string> one_thread{"costs.service_threads=1"};
  const RunResult woken = run(slow, one_thread);
  const RunResult dear = run(test::with_value(slow, "/costs/rpc_cpu_queued_us", "25"), one_thread);
  CHECK(dear.wall_s == woken.wall_s);
  CHECK(dear.cpu_s.rpc == woken.cpu_s.rpc);
  CHECK(run(test::with_value(slow, "/costs/rpc_cpu_queued_us", "9"), one_thread).cpu_s.rpc < woken.cpu_s.rpc);
}

}  // namespace
}  // namespace exsim
