// Calibration's summary: each figure the median of its samples (from however
// many measure_costs calls), its range kept, figures that vary too much
// flagged, a machine too noisy said so, the profile complete and loadable; the
// physical bounds a figure must keep; and the testbed's CPU lists and speed
// deviation, and the call probe.
#include <doctest/doctest.h>

#include <sys/mman.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>

#include <nlohmann/json.hpp>

#include "models/base/error.h"
#include "models/results/results.h"
#include "models/rules/cache_load.h"
#include "models/scenario/scenario_loader.h"
#include "transport/calibration/benchmarks.h"
#include "transport/calibration/calibrate.h"
#include "transport/net/thread_cpu.h"
#include "transport/testbed/call_probe.h"
#include "transport/testbed/cpu_set.h"
#include "transport/testbed/probe_limits.h"
#include "transport/testbed/speed_probe.h"

namespace exsim::transport {
namespace {

CalibrationSamples samples_of(std::map<std::string, std::vector<double>> figures, int wanted) {
  CalibrationSamples s;
  s.steady = static_cast<int>(figures.begin()->second.size());
  s.figures = std::move(figures);
  s.wanted = wanted;
  s.probes_us = {1000, 1010, 990, 1000};
  s.call_probes_us = {23, 24};
  return s;
}

std::map<std::string, std::vector<double>> steady_figures() {
  return {
      {"serialize_bytes_per_s", {2e9, 1.9e9, 2.1e9}},
      {"deserialize_bytes_per_s", {4e9, 4.2e9, 4.1e9}},
      {"serialize_row_ns", {12, 11, 13}},
      {"deserialize_row_ns", {2, 2.1, 2}},
      {"deserialize_batch_us", {3, 3.1, 3}},
      {"lz4_compress_bytes_per_s", {3e8, 3e8, 3.1e8}},
      {"lz4_decompress_bytes_per_s", {2e9, 2e9, 2e9}},
      {"partition_rows_per_s", {2e7, 2.1e7, 2e7}},
      {"append_bytes_per_s", {2.5e10, 2.4e10, 2.5e10}},
      {"core_miss_byte_ns", {0.04, 0.05, 0.04}},
      {"cache_bytes", {2e7, 2.2e7, 1.8e7}},
      {"prefetch_streams", {40, 44, 36}},
      {"prefetched_miss_share", {0.3, 0.35, 0.3}},
      {"cache_miss_row_ns", {12, 11, 13}},
      {"cache_miss_byte_ns", {0.4, 0.45, 0.4}},
      {"transfer_miss_byte_ns", {0.1, 0.12, 0.1}},
      {"decode_miss_byte_ns", {0.05, 0.06, 0.05}},
      {"rpc_cpu_us", {40, 44, 41}},
      {"rpc_cpu_busy_us", {9, 8, 10}},
      {"rpc_cpu_queued_us", {15, 16, 15}},
      {"rpc_caller_cpu_us", {6, 7, 6}},
      {"rpc_latency_us", {1, 1, 1}},
      {"sender_wake_us", {12, 14, 13}},
      {"transfer_bytes_per_s", {5e9, 5e9, 5.2e9}},
      {"wire_overhead_bytes", {88, 88, 88}},
      {"fresh_memory_byte_ns", {0.3, 0.32, 0.3}},
  };
}

TEST_CASE("calibration: medians of the samples, their spread, a loadable profile") {
  auto figures = steady_figures();
  figures["deserialize_bytes_per_s"] = {4e9, 6e9};  // even count: mean of the middle two
  const Calibration c = summarize_costs(samples_of(figures, 2));
  CHECK(c.profile.serialize_bytes_per_s == 2e9);
  CHECK(c.profile.deserialize_bytes_per_s == 5e9);
  CHECK(c.profile.rpc_cpu_us == 41);
  CHECK(c.profile.rpc_cpu_busy_us == 9);
  CHECK(c.profile.rpc_caller_cpu_us == 6);
  CHECK(c.profile.rpc_cpu_queued_us == 15);
  CHECK(c.spread.at("rpc_cpu_us").min == 40);
  CHECK(c.spread.at("rpc_cpu_us").max == 44);
  CHECK(c.profile.wire_overhead_bytes == 88);
  CHECK(c.profile.cores == available_cores());
  CHECK(c.profile.cores >= 1);
  CHECK(c.sources.count("rpc_cpu_us") == 1);
  CHECK(c.speed_us == 1000);
  CHECK(c.speed_spread == doctest::Approx(0.02));
  CHECK_FALSE(c.too_noisy);
  // A queued call never costs more than one alone, nor calls in flight together.
  auto dear = figures;
  dear["rpc_cpu_queued_us"] = {60, 60};
  dear["rpc_cpu_busy_us"] = {50, 50};
  const Calibration bounded = summarize_costs(samples_of(dear, 2));
  CHECK(bounded.profile.rpc_cpu_queued_us == 41);  // rpc_cpu_us, the median of 40, 44 and 41
  CHECK(bounded.profile.rpc_cpu_busy_us == 41);

  // The profile it writes is one the scenario loader reads back, figure for figure.
  const std::string json = cost_profile_json(c.profile, "test", c.sources, c.spread, {"a warning"});
  const auto path = std::string("/tmp/exsim-calibration-test-") + std::to_string(::getpid()) + ".json";
  {
    FILE* f = std::fopen(path.c_str(), "w");
    REQUIRE(f);
    std::fputs(json.c_str(), f);
    std::fclose(f);
  }
  const CostProfile back = load_cost_profile(path);
  std::remove(path.c_str());
  CHECK(back.serialize_bytes_per_s == doctest::Approx(2e9));
  CHECK(back.serialize_row_ns == doctest::Approx(12));
  CHECK(back.deserialize_row_ns == doctest::Approx(2));
  CHECK(back.partition_rows_per_s == doctest::Approx(2e7));
  CHECK(back.append_bytes_per_s == doctest::Approx(2.5e10));
  // The core's own cache is the machine's, as sysfs says, not a measurement.
  CHECK(back.core_cache_bytes == doctest::Approx(core_cache_bytes()));
  CHECK(back.cache_bytes == doctest::Approx(2e7));
  CHECK(back.prefetch_streams == doctest::Approx(40));
  CHECK(back.prefetched_miss_share == doctest::Approx(0.3));
  CHECK(back.cache_miss_row_ns == doctest::Approx(12));
  CHECK(back.cache_miss_byte_ns == doctest::Approx(0.4));
  CHECK(back.transfer_miss_byte_ns == doctest::Approx(0.1));
  CHECK(back.decode_miss_byte_ns == doctest::Approx(0.05));
  CHECK(back.fresh_memory_byte_ns == doctest::Approx(0.3));
  CHECK(back.transfer_bytes_per_s == doctest::Approx(5e9));
  CHECK(back.rpc_cpu_us == doctest::Approx(41));
  CHECK(back.rpc_cpu_busy_us == doctest::Approx(9));
  CHECK(back.rpc_caller_cpu_us == doctest::Approx(6));
  CHECK(back.deserialize_batch_us == doctest::Approx(3));
  CHECK(back.sender_wake_us == doctest::Approx(12));  // the least repetition: the uncontended wake-up
  // The real exchange's calls are read and decoded by one reactor a host.
  CHECK(back.service_threads == 1);
  CHECK(back.cores == c.profile.cores);
  CHECK(nlohmann::json::parse(json)["spread"]["rpc_cpu_us"]["max"] == 44);
  CHECK(nlohmann::json::parse(json)["warnings"][0] == "a warning");
}

TEST_CASE("calibration: a figure that varies beyond 30% is flagged, a steady one is not") {
  auto figures = steady_figures();
  CHECK(summarize_costs(samples_of(figures, 3)).warnings.empty());
  figures["transfer_bytes_per_s"] = {2.7e9, 2.2e10, 5e9};  // the spread once seen on a noisy machine
  const Calibration c = summarize_costs(samples_of(figures, 3));
  REQUIRE(c.warnings.size() == 1);
  CHECK(c.warnings[0].find("transfer_bytes_per_s varied by") == 0);
  CHECK_FALSE(c.too_noisy);
}

TEST_CASE("calibration: fewer steady repetitions than a majority of those asked make a machine too noisy to trust") {
  CHECK(steady_repetitions_needed(1) == 1);
  CHECK(steady_repetitions_needed(2) == 2);
  CHECK(steady_repetitions_needed(3) == 2);
  CHECK(steady_repetitions_needed(5) == 3);
  CalibrationSamples s = samples_of(steady_figures(), 5);  // three kept of five asked: a majority
  s.unsteady = 2;
  CHECK_FALSE(summarize_costs(s).too_noisy);
  s.wanted = 7;  // three of seven: not
  s.unsteady = 4;
  CHECK(summarize_costs(s).too_noisy);
  // None steady: every repetition kept to show, still too noisy to trust.
  s.steady = 0;
  s.unsteady = 5;
  const Calibration c = summarize_costs(s);
  CHECK(c.too_noisy);
  bool said = false;
  for (const auto& w : c.warnings) said = said || w.find("too busy or too noisy") != std::string::npos;
  CHECK(said);
  // Samples from several calls add up, so are the repetitions asked for.
  CalibrationSamples both = samples_of(steady_figures(), 3);
  both.append(samples_of(steady_figures(), 3));
  CHECK(both.wanted == 6);
  CHECK(both.figures.at("rpc_cpu_us").size() == 6);
  CHECK(both.call_probes_us.size() == 4);  // what validate holds its runs' call probes to
  CHECK_FALSE(summarize_costs(both).too_noisy);
}

TEST_CASE("calibration: the cache's figures are one fit to the exchanges' medians, their spread the repetitions'") {
  // Points made with known figures (no core level), each repetition's one
  // point off by a third: the repetitions' own fits scatter, the medians' fit
  // gives the figures back and widens the spread to hold them.
  const CacheFigures truth{.partition_ns = 8, .append_byte_ns = 0.04, .miss_row_ns = 16, .miss_byte_ns = 0.3,
                           .cache_bytes = 30e6, .prefetch_streams = 24, .prefetched_share = 0.35};
  const struct { double channels, batch, row; } shapes[] = {
      {3, 29e3, 40},   {3, 470e3, 40},  {48, 940e3, 40}, {48, 1.1e6, 216}, {12, 3.7e6, 40}, {81, 470e3, 40},
      {48, 29e3, 40},  {48, 59e3, 40},  {48, 235e3, 40}, {24, 470e3, 40},  {3, 29e3, 216},  {81, 120e3, 40}};
  CalibrationSamples s = samples_of(steady_figures(), 3);
  for (int r = 0; r < 3; ++r) {
    std::vector<CacheMeasure> points;
    for (const auto& shape : shapes) {
      RoutePoint p{shape.channels * shape.batch * 3, shape.channels, shape.row, 0, 0};
      p.route_ns = truth.route_ns(p) * (points.size() % 3 == static_cast<std::size_t>(r) ? 1.33 : 1.0);
      points.push_back({p, 0.06});
    }
    s.cache_points.push_back(points);
  }
  const Calibration c = summarize_costs(s);
  CHECK(c.profile.cache_bytes == doctest::Approx(30e6).epsilon(0.05));
  CHECK(c.profile.cache_miss_row_ns == doctest::Approx(16).epsilon(0.05));
  CHECK(c.profile.append_bytes_per_s == doctest::Approx(1e9 / 0.04).epsilon(0.05));
  CHECK(c.profile.partition_rows_per_s == doctest::Approx(1e9 / 8).epsilon(0.03));
  CHECK(c.spread.at("cache_bytes").median == c.profile.cache_bytes);
  CHECK(c.spread.at("cache_bytes").min <= c.profile.cache_bytes);
  CHECK(c.spread.at("cache_bytes").max >= c.profile.cache_bytes);
  // Samples appended from another call bring their points along.
  CalibrationSamples both = s;
  both.append(s);
  CHECK(both.cache_points.size() == 6);
  // A fit with a figure beyond its physical bounds (rows that cost nothing a
  // byte: appending faster than any memory) is not kept: the medians stay, all of them.
  CalibrationSamples free_bytes = samples_of(steady_figures(), 3);
  for (const auto& points : s.cache_points) {
    std::vector<CacheMeasure> flat = points;
    for (CacheMeasure& m : flat) m.route.route_ns = 8 + 16 * evicted_share(m.route.working_set, 30e6);
    free_bytes.cache_points.push_back(flat);
  }
  const Calibration kept = summarize_costs(free_bytes);
  CHECK(kept.profile.cache_bytes == doctest::Approx(2e7));
  CHECK(kept.profile.partition_rows_per_s == doctest::Approx(2e7));
}

TEST_CASE("calibration: every figure has physical bounds, and a run that breaks them is recognizable") {
  for (const auto& [key, values] : steady_figures()) {
    double min = -1, max = -1;
    REQUIRE(figure_bounds(key, min, max));
    CHECK(min <= values.front());
    CHECK(values.front() <= max);
  }
  double min = 0, max = 0;
  REQUIRE(figure_bounds("transfer_bytes_per_s", min, max));
  CHECK(6.6e16 > max);  // a figure once written from a noisy difference: faster than any memory
  CHECK(min == 1e6);    // 1 MB/s
  REQUIRE(figure_bounds("rpc_cpu_us", min, max));
  CHECK(max == 1000);   // a millisecond of CPU per call
  CHECK_FALSE(figure_bounds("cores", min, max));
}

TEST_CASE("calibration: per-row and per-byte costs from rows of two widths") {
  // 10 ns a row and 0.5 ns a byte: 1000 rows of 40 B, 200 of 216 B.
  const WorkSample narrow{1000 * 10 + 40000 * 0.5, 1000, 40000};
  const WorkSample wide{200 * 10 + 43200 * 0.5, 200, 43200};
  const RowAndByteCost cost = split_row_and_byte(narrow, wide);
  CHECK(cost.row_ns == doctest::Approx(10));
  CHECK(cost.byte_ns == doctest::Approx(0.5));
  CHECK(cost.ns(1000, 40000) == doctest::Approx(narrow.ns));
  // Per byte only: no per-row part is invented.
  const RowAndByteCost bytes_only = split_row_and_byte({40000, 1000, 40000}, {43200, 200, 43200});
  CHECK(bytes_only.row_ns == doctest::Approx(0).epsilon(1e-9));
  CHECK(bytes_only.byte_ns == doctest::Approx(1));
  // Noise that would make the per-row part negative: none, and the bytes pay for both samples.
  const RowAndByteCost noisy = split_row_and_byte({38000, 1000, 40000}, {46000, 200, 43200});
  CHECK(noisy.row_ns == 0);
  CHECK(noisy.byte_ns == doctest::Approx((38000.0 + 46000) / (40000 + 43200)));
  // Rows of one width cannot be told apart: the bytes pay for all.
  const RowAndByteCost same = split_row_and_byte({500, 10, 400}, {1000, 20, 800});
  CHECK(same.row_ns == 0);
  CHECK(same.byte_ns == doctest::Approx(1500.0 / 1200));
}

TEST_CASE("testbed: CPU lists, and how far a sample's speed strays") {
  const std::vector<int> allowed = allowed_cpus();
  REQUIRE_FALSE(allowed.empty());
  CHECK(parse_cpu_list("all", "--cpus") == allowed);
  CHECK(parse_cpu_list(std::to_string(allowed.front()), "--cpus") == std::vector<int>{allowed.front()});
  CHECK_THROWS_AS(parse_cpu_list("x", "--cpus"), UsageError);
  CHECK_THROWS_AS(parse_cpu_list("3-1", "--cpus"), UsageError);
  CHECK_THROWS_AS(parse_cpu_list("9999", "--cpus"), UsageError);  // not one this process may use
  CHECK(cpu_list_text({0, 1, 2, 5}) == "0-2,5");
  CHECK(cpu_list_text({1}) == "1");
  CHECK(speed_deviation(1000, 1000, 1000) == 0);
  CHECK(speed_deviation(1000, 1300, 1000) == doctest::Approx(0.3));
  CHECK(speed_deviation(900, 1050, 1000) == doctest::Approx(0.1));
  CHECK(speed_deviation(1050, 1100, 1000) <= kSteadySpeed);
  CHECK(speed_deviation(1000, 2000, 1000) > kSteadySpeed);  // a core whose sibling is busy
  CHECK(probe_speed_us() > 0);
}

TEST_CASE("the call probe: round trips with an echo process, and a slowdown against the usual figure") {
  pid_t echo = -1;
  {
    CallProbe calls;
    const double trip = calls.probe_us();
    CHECK(trip > 0);
    CHECK(trip < 100'000);  // a round trip on one machine, never a tenth of a second
    CHECK(calls.usual_us() > 0);
    echo = calls.echo_pid();
    CHECK(::kill(echo, 0) == 0);  // running
  }
  CHECK(::kill(echo, 0) != 0);  // stopped and reaped with the probe
  // The larger probe against the usual figure; faster is no slowdown.
  CHECK(call_slowdown(100, 100, 100) == doctest::Approx(0));
  CHECK(call_slowdown(100, 130, 100) == doctest::Approx(0.3));
  CHECK(call_slowdown(130, 100, 100) == doctest::Approx(0.3));
  CHECK(call_slowdown(100, 115, 100) < kSteadyCalls);
  CHECK(call_slowdown(100, 125, 100) > kSteadyCalls);
  CHECK(call_slowdown(50, 50, 100) == doctest::Approx(-0.5));
  // What a measurement's per-call figures are moved back by: nothing within the
  // quiet variation; the probes' mean when dearer throughout; unknown (0) when
  // they changed during it, or strayed beyond what moves costs.
  CHECK(calls_factor(100, 115, 100) == 1);
  CHECK(calls_factor(140, 145, 100) == doctest::Approx(1.425));
  CHECK(calls_factor(100, 140, 100) == 0);  // changed by 40% during it
  CHECK(calls_factor(160, 160, 100) == 0);  // 60% dearer: beyond kScalableCallSlowdown
}

TEST_CASE("a thread's minor faults count each fresh page it writes, and a page written again none") {
  constexpr std::size_t kPages = 512;
  const auto page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  void* mapping = mmap(nullptr, kPages * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  REQUIRE(mapping != MAP_FAILED);
  madvise(mapping, kPages * page, MADV_NOHUGEPAGE);  // one fault a page, not one a huge page
  auto* bytes = static_cast<volatile char*>(mapping);
  const std::int64_t before = thread_minor_faults();
  for (std::size_t i = 0; i < kPages; ++i) bytes[i * page] = 1;
  const std::int64_t written = thread_minor_faults() - before;
  const std::int64_t again_before = thread_minor_faults();
  for (std::size_t i = 0; i < kPages; ++i) bytes[i * page] = 2;  // the pages are the process's now
  const std::int64_t again = thread_minor_faults() - again_before;
  munmap(mapping, kPages * page);
  CHECK(written >= static_cast<std::int64_t>(kPages));
  CHECK(written < static_cast<std::int64_t>(kPages) + 64);  // the test's own stack and code: a few
  CHECK(again < 16);
}

}  // namespace
}  // namespace exsim::transport

namespace exsim::transport {

TEST_CASE("per-call figures: a call's CPU per side, the caller's part, wake-up and deserialization, by hand") {
  RunResult alone;
  alone.rpcs = 1000;
  alone.cpu_s.rpc = 0.030;        // 30 us a call, both reactors
  alone.cpu_s.call = 0.006;       // 6 us a call, the sender thread's hand-offs
  alone.cpu_s.serialize = 0.004;  // 4 us a call
  alone.cpu_s.deserialize = 0.001;
  alone.sender_wake.p50_us = 7;
  const AgentCalls calls = calls_of(alone);
  CHECK(calls.call_ns == doctest::Approx(20000));  // (30 + 6 + 4) / 2 sides
  CHECK(calls.caller_ns == doctest::Approx(6000));
  CHECK(calls.deserialize_ns == doctest::Approx(1000));
  CHECK(calls.wake_us == 7);
  RunResult shared = alone;
  shared.cpu_s.rpc = 0.002;
  const auto figures = per_call_figures(calls, calls_of(shared));
  CHECK(figures.at("rpc_cpu_us") == doctest::Approx(20));
  CHECK(figures.at("rpc_cpu_busy_us") == doctest::Approx(6));  // (2 + 6 + 4) / 2
  CHECK(figures.at("rpc_caller_cpu_us") == doctest::Approx(6));
  CHECK(figures.at("sender_wake_us") == doctest::Approx(7));
  CHECK(figures.at("deserialize_batch_us") == doctest::Approx(1));
  // Many calls in flight never cost a call more than one alone.
  shared.cpu_s.rpc = 0.1;
  CHECK(per_call_figures(calls, calls_of(shared)).at("rpc_cpu_busy_us") == doctest::Approx(20));
  // A queued call's figure lies between a call in a train and one alone.
  CHECK(bounded_queued_call_us(15, 6, 20) == 15);
  CHECK(bounded_queued_call_us(4, 6, 20) == 6);
  CHECK(bounded_queued_call_us(25, 6, 20) == 20);
  CHECK(bounded_queued_call_us(25, 30, 20) == 20);  // medians of different runs: one alone wins
  RunResult none;
  CHECK_THROWS_WITH_AS(calls_of(none), doctest::Contains("made no call"), std::runtime_error);
}

TEST_CASE("the path's calls: one scenario of the cluster's hosts, h0 calling h1, alone and 64 in flight") {
  const Scenario s = parse_scenario(path_calls_scenario(4, 1.0, 3), "(path calls)");
  CHECK(s.cluster.hosts.size() == 4);
  REQUIRE(s.policies.size() == 2);
  CHECK(s.policies[0].name == "alone");
  CHECK(s.policies[0].in_flight == 1);
  CHECK(s.policies[1].name == "shared");
  CHECK(s.policies[1].in_flight == 64);
  REQUIRE(s.queries.size() == 1);
  const Exchange& x = s.queries[0].exchanges.at(0);
  CHECK(x.rows == 3000);
  REQUIRE(x.senders.hosts.size() == 1);
  CHECK(x.senders.hosts[0] == 0);
  REQUIRE(x.receivers.hosts.size() == 1);
  CHECK(x.receivers.hosts[0] == 1);
  CHECK(parse_scenario(path_calls_scenario(2, 0.01, 3), "(path calls)").queries[0].exchanges[0].rows == 1000);
}

}  // namespace exsim::transport
