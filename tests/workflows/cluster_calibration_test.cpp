// calibrate --hosts' profile: each figure the median over the hosts, the
// cores those of one machine or each host's own, the RPC layer's round trip
// the hosts' pings of themselves, and the per-call figures those measured on
// the cluster's own path, their spread kept relative to the hosts'.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "workflows/cluster_calibration.h"
#include "workflows/suite_measurement.h"

namespace exsim::workflows {
namespace {

ClusterCalibration three_hosts() {
  ClusterCalibration c;
  c.names = {"h0", "h1", "h2"};
  c.addresses = {"10.0.0.1:7100", "10.0.0.2:7100", "10.0.0.3:7100"};
  c.cores = {2, 2, 2};
  c.machines = {"boot-a", "boot-a", "boot-a"};
  c.rtt = LatencyMatrix(3);
  const double own_ms[] = {0.010, 0.030, 0.014};
  for (int h = 0; h < 3; ++h) c.rtt.set_rtt(h, h, ms_to_ns(own_ms[h]));
  for (const double rpc : {40.0, 30.0, 34.0}) {
    c.host_profiles.push_back({{"description", "a host"},
                               {"rpc_cpu_us", rpc},
                               {"serialize_row_ns", rpc / 10},
                               {"cache_bytes", static_cast<std::int64_t>(rpc * 1000)},
                               {"sources", {{"rpc_cpu_us", "one-row calls"}}},
                               {"spread", {{"rpc_cpu_us", {{"median", 30.0}, {"min", 27.0}, {"max", 36.0}}}}}});
  }
  return c;
}

TEST_CASE("a cluster's profile: each figure the median over its hosts") {
  const auto profile = median_profile(three_hosts());
  CHECK(profile["serialize_row_ns"].get<double>() == doctest::Approx(3.4));
  CHECK(profile["cache_bytes"].is_number_integer());
  CHECK(profile["cache_bytes"].get<std::int64_t>() == 34000);
  CHECK(profile["rpc_cpu_us"].get<double>() == doctest::Approx(34));  // no path measured: the hosts' median
  // The RPC layer's own round trip: the median host's ping of itself.
  CHECK(profile["rpc_latency_us"].get<double>() == doctest::Approx(14));
  CHECK(median_profile(ClusterCalibration{}).is_null());
}

TEST_CASE("a cluster's profile: the hosts share one machine's cores only when they run on one") {
  ClusterCalibration c = three_hosts();
  CHECK(median_profile(c)["cores"] == 2);
  c.machines[2] = "boot-b";
  CHECK(median_profile(c)["cores"] == 0);
  c.machines = {"", "", ""};  // agents that did not say
  CHECK(median_profile(c)["cores"] == 0);
}

TEST_CASE("a cluster's profile: the per-call figures those of its own path, their spread scaled to them") {
  ClusterCalibration c = three_hosts();
  c.path_calls = {{"rpc_cpu_us", 12.0}, {"sender_wake_us", 9.0}};
  const auto profile = median_profile(c);
  CHECK(profile["rpc_cpu_us"].get<double>() == doctest::Approx(12));
  CHECK(profile["sender_wake_us"].get<double>() == doctest::Approx(9));
  const std::string source = profile["sources"]["rpc_cpu_us"].get<std::string>();
  CHECK(source.find("10.0.0.1:7100 -> 10.0.0.2:7100") != std::string::npos);
  CHECK(source.find("one-row calls") != std::string::npos);  // the hosts' description kept after it
  // The hosts' spread was 27-36 about 30: the path's is as wide about 12.
  CHECK(profile["spread"]["rpc_cpu_us"]["median"].get<double>() == doctest::Approx(12));
  CHECK(profile["spread"]["rpc_cpu_us"]["min"].get<double>() == doctest::Approx(10.8));
  CHECK(profile["spread"]["rpc_cpu_us"]["max"].get<double>() == doctest::Approx(14.4));
  // Hosts' profiles without a spread get none.
  for (auto& p : c.host_profiles) p.erase("spread");
  CHECK_FALSE(median_profile(c).contains("spread"));
}

TEST_CASE("a cluster's profile: the RPC layer's bytes those of its paths from h0, said so") {
  ClusterCalibration c = three_hosts();
  c.path_calls = {{"rpc_cpu_us", 12.0}, {"transfer_bytes_per_s", 9.0e9}, {"transfer_miss_byte_ns", 0.09}};
  const auto profile = median_profile(c);
  CHECK(profile["transfer_bytes_per_s"].get<double>() == doctest::Approx(9.0e9));
  CHECK(profile["transfer_miss_byte_ns"].get<double>() == doctest::Approx(0.09));
  const std::string source = profile["sources"]["transfer_bytes_per_s"].get<std::string>();
  CHECK(source.find("over the paths from 10.0.0.1:7100 to the first three hosts") != std::string::npos);
  CHECK(source.find("10.0.0.1:7100 -> 10.0.0.2:7100") == std::string::npos);
}

}  // namespace
}  // namespace exsim::workflows

namespace exsim::workflows {
namespace {

RunResult probed_run(double h0_before, double h0_after, double h1_before, double h1_after) {
  RunResult run;
  run.hosts.resize(2);
  run.hosts[0].name = "h0";
  run.hosts[1].name = "h1";
  run.hosts[0].speed_probe_before_us = h0_before;
  run.hosts[0].speed_probe_after_us = h0_after;
  run.hosts[1].speed_probe_before_us = h1_before;
  run.hosts[1].speed_probe_after_us = h1_after;
  return run;
}

TEST_CASE("a cluster's run moves its costs to its hosts' speeds, unless a host changed during it (named)") {
  const std::vector<double> reference{1000, 800};
  const ClusterSpeed steady = cluster_speed(probed_run(1050, 960, 820, 790), reference);  // within 12%
  CHECK(steady.unscalable.empty());
  CHECK(steady.slowdown == doctest::Approx((1005.0 + 805.0) / 1800.0));
  // Both hosts 20% slower throughout: their costs moved so, not set aside.
  const ClusterSpeed slow = cluster_speed(probed_run(1200, 1200, 960, 960), reference);
  CHECK(slow.unscalable.empty());
  CHECK(slow.slowdown == doctest::Approx(1.2));
  // h1 25% faster after than before: what it ran at is unknown.
  const std::string why = cluster_speed(probed_run(1000, 1000, 800, 640), reference).unscalable;
  CHECK(why.find("host h1's speed changed by 25% over the run") != std::string::npos);
  CHECK(why.find("against 800") != std::string::npos);
  CHECK(cluster_speed(probed_run(1500, 1500, 800, 800), reference).unscalable.find("host h0's speed ran 50% slower") !=
        std::string::npos);
  // A host with no reference, or a run not probed, is not held, and moves nothing.
  const ClusterSpeed one = cluster_speed(probed_run(1000, 1000, 800, 640), {1000, -1});
  CHECK(one.unscalable.empty());
  CHECK(one.slowdown == doctest::Approx(1));
  CHECK(cluster_speed(probed_run(-1, -1, -1, -1), reference).slowdown == 1);
  CHECK(cluster_speed(probed_run(1000, 1000, 800, 640), {}).unscalable.empty());
}

}  // namespace
}  // namespace exsim::workflows

namespace exsim::workflows {
namespace {

// three_hosts with its pairs measured: pings of 40 us with the cores held awake,
// and each ordered pair's extra with them free to sleep (us) as given.
ClusterCalibration three_hosts_pinged(const double (&free_extra_us)[3][3]) {
  ClusterCalibration c = three_hosts();
  c.bandwidth_gbps.assign(3, std::vector<double>(3, -1));
  c.rtt_p10_ms = c.rtt_p90_ms = c.bandwidth_gbps;
  c.ping_cores_free_ms = c.bandwidth_gbps;
  for (int a = 0; a < 3; ++a) {
    for (int b = 0; b < 3; ++b) {
      if (a != b) c.rtt.set_rtt(a, b, ms_to_ns(0.040));
      const auto i = static_cast<std::size_t>(a), j = static_cast<std::size_t>(b);
      if (a != b) c.bandwidth_gbps[i][j] = 20;
      c.ping_cores_free_ms[i][j] = c.rtt.rtt_ms(a, b) + free_extra_us[a][b] * 1e-3;
    }
  }
  c.groups.group_of = {0, 0, 0};
  c.groups.why = "one group";
  c.cores_awake = {"held", "held", "not held: /dev/cpu_dma_latency: Permission denied (needs root)"};
  return c;
}

TEST_CASE("a cluster's calibration says what letting its cores sleep adds to the pings, and warns when it is dear") {
  // Three pairs whose threads meet on a halted core, three that do not.
  const double sleepy[3][3] = {{50, 70, 1}, {72, 50, 2}, {4, 74, 50}};
  const std::string line = sleep_cost(three_hosts_pinged(sleepy));
  // Pairs only (a host's ping of itself is the RPC layer): +1 +2 +4 +70 +72 +74, median 37.
  CHECK(line.find("+37 us (median pair; +1 to +74 us)") != std::string::npos);
  CHECK(line.find("slow to wake") != std::string::npos);
  CHECK(line.find("up to 74 us more") != std::string::npos);

  // A pair a little faster asleep (noise) reads +0, not -0.
  const double awake[3][3] = {{0, 3, -0.3}, {2, 0, 2}, {1, 3, 0}};
  const std::string quiet = sleep_cost(three_hosts_pinged(awake));
  CHECK(quiet.find("+2 us (median pair; +0 to +3 us)") != std::string::npos);
  CHECK(quiet.find("slow to wake") == std::string::npos);

  ClusterCalibration unmeasured = three_hosts_pinged(awake);
  unmeasured.ping_cores_free_ms.clear();
  CHECK(sleep_cost(unmeasured).empty());
}

TEST_CASE("a cluster's file keeps how its hosts' cores were, and the pings with them free to sleep") {
  const double sleepy[3][3] = {{50, 70, 1}, {72, 50, 2}, {4, 74, 50}};
  const auto file = cluster_json(three_hosts_pinged(sleepy));
  const auto& measured = file["measured"];
  CHECK(measured["cores_awake"][0] == "held");
  CHECK(measured["cores_awake"][2].get<std::string>().rfind("not held: /dev/cpu_dma_latency", 0) == 0);
  CHECK(measured["ping_cores_free_ms"][1][0].get<double>() == doctest::Approx(0.112));
  // The RTTs the model gets are those with the cores held: the pings less the hosts' own.
  CHECK(file["cluster"]["rtt_matrix_ms"][0][1].get<double>() == doctest::Approx(0.040 - (0.010 + 0.030) / 2));
}

}  // namespace
}  // namespace exsim::workflows
