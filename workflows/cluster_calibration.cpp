#include "workflows/cluster_calibration.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "models/scenario/costs.h"
#include "models/scenario/scenario_loader.h"
#include "transport/agent/agent_session.h"
#include "transport/agent/coordinator.h"
#include "transport/calibration/benchmarks.h"
#include "transport/calibration/cache_fit.h"
#include "transport/net/endpoint_text.h"

namespace exsim::workflows {
namespace {

using json = nlohmann::json;
constexpr std::uint64_t kPathCallsSeed = 1;
using Clock = std::chrono::steady_clock;

// A percentile, interpolated between neighbours (medians: costs.h spread_of).
double percentile(std::vector<double> values, double q) {
  if (values.empty()) return -1;
  std::sort(values.begin(), values.end());
  const double at = q * static_cast<double>(values.size() - 1);
  const auto below = static_cast<std::size_t>(std::floor(at));
  const std::size_t above = std::min(values.size() - 1, below + 1);
  return values[below] + (values[above] - values[below]) * (at - static_cast<double>(below));
}

// The scenario the agents are set up with: the per-call benchmark's calls
// from h0 to h1 (benchmarks.h), or for one host the smallest there is (the
// probes are the agents' own calls, beside any scenario).
std::string session_scenario(std::size_t hosts, double scale) {
  if (hosts >= 2) return transport::path_calls_scenario(static_cast<int>(hosts), scale, kPathCallsSeed);
  return R"({"name": "cluster-calibration", "cluster": {"hosts": 1, "rtt_ms": {"same_group": 0.1}},
  "policies": {"probe": {}}, "workload": {"queries": [{"name": "none", "exchanges": [
    {"id": "x", "kind": "hash", "rows": 1, "row": {"fixed_bytes": 8}, "lz4_ratio": 1.0}]}]}})";
}

// How long an agent may take for one pair's probe, and for its calibration.
constexpr std::chrono::seconds kProbeReply{60};
constexpr std::chrono::hours kCpuReply{1};

// Pair from's round trips (ms) to `to` and, with bulk_bytes, its bandwidth (bytes/s).
json probe_path(transport::AgentSession& session, std::size_t from, std::size_t to, int round_trips,
                std::size_t bulk_bytes) {
  session.send(from, {{"op", "probe"}, {"to", to}, {"round_trips", round_trips}, {"bulk_bytes", bulk_bytes}});
  return session.expect(from, "probed", Clock::now() + kProbeReply);
}

// The RPC layer's bytes over the cluster's own paths: calibrate's transfer
// exchanges (benchmarks.h measure_transfer), one sender on h0 to h0-h2, each
// a session of its own on the agents (which serve one coordinator after
// another), the figures the median of the repetitions. On one machine they
// run through delay lines and NIC pacing, whose buffers add to a byte's cost:
// 0.24 ns a byte and side there, 0.11 over three network namespaces' veth
// path on the same machine (docs/validation.md, "On a real cluster").
void measure_path_transfer(const ClusterCalibrationOptions& options, ClusterCalibration& c,
                           const std::function<void(const std::string&)>& say) {
  say(fmt::format("the RPC layer's bytes on the paths from {} (hash exchanges, 16K to 512K batches)", c.addresses[0]));
  // The hosts' cache, as median_profile gives it.
  std::vector<double> caches;
  for (const auto& p : c.host_profiles) caches.push_back(p.value("cache_bytes", 0.0));
  const double cache_bytes = spread_of(caches).median;
  const auto run_exchange = [&](const std::string& text) {
    transport::RunOptions run;
    run.scenario_text = text;
    run.scenario_file = "(cluster calibration: transfer)";
    run.hosts_file = options.hosts_file;
    run.token = options.token;
    run.spare_agents_ok = true;
    run.delay_line = false;
    run.hold_cores_awake = options.hold_cores_awake;
    run.timeout = std::chrono::seconds(120);
    return std::move(transport::run_on_agents(parse_scenario(text, run.scenario_file), run).at(0));
  };
  std::vector<double> ns_per_byte, miss_ns_per_byte, call_ns;
  try {
    for (int rep = 0; rep < std::max(1, options.cpu_repetitions); ++rep) {
      const transport::TransferFigures f = transport::measure_transfer(options.cpu_scale, kPathCallsSeed + 1 + rep,
                                                                       cache_bytes, run_exchange);
      ns_per_byte.push_back(f.ns_per_byte);
      miss_ns_per_byte.push_back(f.miss_ns_per_byte);
      call_ns.push_back(f.call_ns);
    }
  } catch (const std::exception& e) {
    c.path_transfer_failure = e.what();
    return;
  }
  c.path_calls["transfer_bytes_per_s"] = 1e9 / std::max(1e-6, spread_of(ns_per_byte).median);
  c.path_calls["transfer_miss_byte_ns"] = spread_of(miss_ns_per_byte).median;
  // As calibrate bounds it, by the path's own per-call figures when measured.
  double queued_us = spread_of(call_ns).median * 1e-3;
  if (c.path_calls.contains("rpc_cpu_us"))
    queued_us = transport::bounded_queued_call_us(queued_us, c.path_calls["rpc_cpu_busy_us"], c.path_calls["rpc_cpu_us"]);
  c.path_calls["rpc_cpu_queued_us"] = queued_us;
}

}  // namespace

ClusterCalibration calibrate_cluster(const ClusterCalibrationOptions& options) {
  const auto endpoints = transport::read_hosts_file(options.hosts_file);
  const std::size_t n = endpoints.size();
  if (n == 0) throw std::runtime_error(fmt::format("{} lists no agent", options.hosts_file));
  const auto say = [&](const std::string& line) {
    if (options.progress) options.progress(line);
  };
  transport::RunOptions run;
  run.scenario_text = session_scenario(n, options.cpu_scale);
  run.scenario_file = "(cluster calibration)";
  run.hosts_file = options.hosts_file;
  run.token = options.token;
  run.delay_line = false;
  run.timeout = std::chrono::seconds(120);
  run.hold_cores_awake = options.hold_cores_awake;
  const Scenario scenario = parse_scenario(run.scenario_text, run.scenario_file);
  transport::AgentSession session(scenario, run);
  session.start();

  ClusterCalibration c;
  c.rtt = LatencyMatrix(static_cast<int>(n));
  c.rtt_p10_ms.assign(n, std::vector<double>(n, -1));
  c.rtt_p90_ms = c.rtt_p10_ms;
  c.bandwidth_gbps = c.rtt_p10_ms;
  for (std::size_t h = 0; h < n; ++h) {
    const json& ready = session.ready(h);
    c.addresses.push_back(fmt::format("{}:{}", endpoints[h].address, endpoints[h].port));
    c.cores.push_back(ready.value("cores", 0));
    c.machines.push_back(ready.value("boot_id", ""));
    c.names.push_back(fmt::format("h{}", h));
    c.cores_awake.push_back(session.cores_awake(h));
  }
  // One pair at a time, each direction: no two probes share a link or a host's CPU.
  for (std::size_t from = 0; from < n; ++from) {
    for (std::size_t to = 0; to < n; ++to) {
      say(fmt::format("path {} -> {}", c.addresses[from], c.addresses[to]));
      const json reply =
          probe_path(session, from, to, options.round_trips, from == to ? std::size_t{0} : options.bulk_bytes);
      const auto times = reply.at("round_trip_ms").get<std::vector<double>>();
      c.rtt.set_rtt(static_cast<int>(from), static_cast<int>(to), ms_to_ns(spread_of(times).median));
      c.rtt_p10_ms[from][to] = percentile(times, 0.1);
      c.rtt_p90_ms[from][to] = percentile(times, 0.9);
      if (from != to) c.bandwidth_gbps[from][to] = reply.at("bytes_per_s").get<double>() * 8e-9;
    }
  }
  c.groups = find_placement_groups(c.rtt);
  // What sleep costs a ping: the same pings with the cores free to sleep
  // (the RTTs and groups stay those of cores held awake, as the model has them).
  if (options.hold_cores_awake && std::find(c.cores_awake.begin(), c.cores_awake.end(), "held") != c.cores_awake.end()) {
    say("pings again with the cores free to sleep");
    session.hold_cores_awake(false);
    c.ping_cores_free_ms.assign(n, std::vector<double>(n, -1));
    for (std::size_t from = 0; from < n; ++from) {
      for (std::size_t to = 0; to < n; ++to) {
        const auto times = probe_path(session, from, to, options.round_trips, 0).at("round_trip_ms").get<std::vector<double>>();
        c.ping_cores_free_ms[from][to] = spread_of(times).median;
      }
    }
    session.hold_cores_awake(true);
  }
  if (options.cpu && n >= 2) {
    say(fmt::format("per-call costs on the path {} -> {} (one-row calls, one and 64 in flight)", c.addresses[0],
                    c.addresses[1]));
    const std::vector<RunResult> calls = transport::run_on_session(session, scenario, run);
    c.path_calls = transport::per_call_figures(transport::calls_of(calls.at(0)), transport::calls_of(calls.at(1)));
  }
  if (options.cpu) {
    // Each host's own calibration as on a machine of its own, the cores free
    // to sleep: compute costs need no core awake, and held awake (polling) the
    // speed probes wandered more on a virtual machine, 6 of 10 small
    // calibrations setting a host aside against 3 of 10.
    if (options.hold_cores_awake) session.hold_cores_awake(false);
    for (std::size_t h = 0; h < n; ++h) {
      say(fmt::format("CPU costs of {} (exsim calibrate on it)", c.addresses[h]));
      session.send(h, {{"op", "calibrate_cpu"}, {"repetitions", options.cpu_repetitions}, {"scale", options.cpu_scale}});
      const json reply = session.expect(h, "calibrated", Clock::now() + kCpuReply);
      const std::string profile = reply.at("profile").get<std::string>();
      c.speed_probe_us.push_back(-1);
      if (reply.at("exit_code").get<int>() != 0 || profile.empty()) {
        c.cpu_failures.push_back(fmt::format("{}: calibrate exited {}: {}", c.addresses[h],
                                             reply.at("exit_code").get<int>(), reply.at("log").get<std::string>()));
        continue;
      }
      c.host_profiles.push_back(nlohmann::ordered_json::parse(profile));
      // The speed its costs hold at: the host's probe right after them.
      session.send(h, {{"op", "speed"}});
      c.speed_probe_us.back() = session.expect(h, "speed", Clock::now() + kProbeReply).at("probe_us").get<double>();
    }
  }
  session.shut_down();
  if (options.cpu && n >= 3 && !c.host_profiles.empty()) measure_path_transfer(options, c, say);
  return c;
}

nlohmann::ordered_json cluster_json(const ClusterCalibration& c) {
  using ordered = nlohmann::ordered_json;
  const std::size_t n = c.names.size();
  ordered hosts = ordered::array();
  // A call's time in the model is the pair's RTT plus the profile's
  // rpc_latency_us, the RPC layer's own round trip. A ping measures both: a
  // host's ping of itself is the RPC layer alone (median_profile's
  // rpc_latency_us), and a pair's RTT is its ping less the two hosts' own,
  // averaged over both directions (a scenario's matrix is symmetric).
  std::vector<std::vector<double>> rtt_ms(n, std::vector<double>(n, 0)), directed_ms = rtt_ms;
  const auto own = [&](std::size_t h) { return c.rtt.rtt_ms(static_cast<int>(h), static_cast<int>(h)); };
  std::vector<double> crossing;
  for (std::size_t a = 0; a < n; ++a) {
    hosts.push_back({{"name", c.names[a]}, {"group", fmt::format("g{}", c.groups.group_of[a])}});
    for (std::size_t b = 0; b < n; ++b) {
      const int i = static_cast<int>(a), j = static_cast<int>(b);
      directed_ms[a][b] = c.rtt.rtt_ms(i, j);
      if (a != b) rtt_ms[a][b] = std::max(0.0, (c.rtt.rtt_ms(i, j) + c.rtt.rtt_ms(j, i) - own(a) - own(b)) / 2);
      if (a != b && c.bandwidth_gbps[a][b] > 0) crossing.push_back(c.bandwidth_gbps[a][b]);
    }
  }
  ordered cluster{{"hosts", hosts},
                  {"cores_per_host", std::max(1, *std::min_element(c.cores.begin(), c.cores.end()))},
                  {"rtt_matrix_ms", rtt_ms}};
  // The NIC a host pair achieves, as the scenario's per-host figure: the median pair.
  if (!crossing.empty()) cluster["nic_gbps"] = spread_of(crossing).median;
  ordered measured{{"addresses", c.addresses},
                   {"cores", c.cores},
                   {"machines", c.machines},
                   {"ping_ms", directed_ms},
                   {"rtt_p10_ms", c.rtt_p10_ms},
                   {"rtt_p90_ms", c.rtt_p90_ms},
                   {"bandwidth_gbps", c.bandwidth_gbps},
                   {"groups", c.groups.why}};
  measured["cores_awake"] = c.cores_awake;
  if (!c.ping_cores_free_ms.empty()) measured["ping_cores_free_ms"] = c.ping_cores_free_ms;
  if (!c.cpu_failures.empty()) measured["cpu_failures"] = c.cpu_failures;
  if (!c.speed_probe_us.empty()) measured["speed_probe_us"] = c.speed_probe_us;
  return {{"description", fmt::format("{} hosts measured by exsim calibrate --hosts: ping_ms is the median of each "
                                      "ordered pair's RPC round trips (spread in rtt_p10_ms, rtt_p90_ms), a host's "
                                      "ping of itself the RPC layer alone; the RTT of a pair is its pings less "
                                      "its hosts' own, both ways averaged; nic_gbps the median pair's bandwidth; "
                                      "groups found from the pings; speed_probe_us each host's speed probe after "
                                      "its CPU calibration (-1: none), which validate --hosts holds runs to; "
                                      "cores_awake how each host's cores were while the paths and calls were measured "
                                      "(held out of deep idle states unless --let-cores-sleep; each host's CPU costs "
                                      "with them free to sleep), ping_cores_free_ms the same pings with them free "
                                      "to sleep",
                                      n)},
          {"cluster", cluster},
          {"measured", measured}};
}

std::string sleep_cost(const ClusterCalibration& c) {
  if (c.ping_cores_free_ms.empty()) return "";
  std::vector<double> extra_us;
  for (int a = 0; a < c.rtt.hosts(); ++a) {
    for (int b = 0; b < c.rtt.hosts(); ++b) {
      const double free = c.ping_cores_free_ms[static_cast<std::size_t>(a)][static_cast<std::size_t>(b)];
      if (a != b && free >= 0) extra_us.push_back((free - c.rtt.rtt_ms(a, b)) * 1e3);
    }
  }
  if (extra_us.empty()) return "";
  const FigureSpread extra = spread_of(extra_us);
  // Whole microseconds, a value that rounds to none as +0 (not -0).
  const auto whole = [](double us) { return std::round(us) == 0 ? 0.0 : std::round(us); };
  std::string line = fmt::format("with the cores free to sleep, pings between hosts took {:+.0f} us (median pair; "
                                 "{:+.0f} to {:+.0f} us) against the cores held awake",
                                 whole(extra.median), whole(extra.min), whole(extra.max));
  if (extra.max > kDearSleepUs) {
    line += fmt::format(": these hosts' cores are slow to wake. The model has them awake, as run and validate "
                        "--hosts hold them; an exchange on these hosts as they are waits up to {:.0f} us more on "
                        "each call that finds a core asleep",
                        extra.max);
  }
  return line;
}

nlohmann::ordered_json median_profile(const ClusterCalibration& c) {
  if (c.host_profiles.empty()) return nullptr;
  nlohmann::ordered_json profile = c.host_profiles.front();
  for (auto& [key, value] : profile.items()) {
    if (!value.is_number()) continue;
    std::vector<double> values;
    for (const auto& p : c.host_profiles) {
      if (p.contains(key) && p[key].is_number()) values.push_back(p[key].get<double>());
    }
    const double median = spread_of(values).median;
    // Counts (cache bytes, streams) stay whole.
    value = value.is_number_integer() ? nlohmann::ordered_json(std::llround(median)) : nlohmann::ordered_json(median);
  }
  // One machine's calibration counts its own CPUs, shared by the hosts it
  // emulates; a cluster's hosts have their own.
  const bool one_machine =
      !c.machines.front().empty() && std::all_of(c.machines.begin(), c.machines.end(),
                                                 [&](const std::string& m) { return m == c.machines.front(); });
  profile["cores"] = one_machine ? c.cores.front() : 0;
  // The RPC layer's own round trip, as the cluster's hosts run it (their pings
  // of themselves): what cluster_json took out of each pair's RTT.
  std::vector<double> own_us;
  for (int h = 0; h < c.rtt.hosts(); ++h) own_us.push_back(c.rtt.rtt_ms(h, h) * 1e3);
  profile["rpc_latency_us"] = spread_of(own_us).median;
  const bool sources = profile.contains("sources") && profile["sources"].is_object();
  if (sources) profile["sources"]["rpc_latency_us"] = "measured by calibrate --hosts: the median host's RPC round trip to itself";
  // The RPC layer's CPU and wake-ups per call as the cluster's path makes
  // them, no delay line's timer among them. The path is measured once: each
  // keeps the hosts' repetitions' spread relative to their median, about the
  // path's value.
  const bool spreads = profile.contains("spread") && profile["spread"].is_object();
  for (const auto& [key, value] : c.path_calls) {
    if (sources) {
      const std::string path = key.rfind("transfer_", 0) == 0 || key == "rpc_cpu_queued_us"
                                   ? fmt::format("the paths from {} to the first three hosts", c.addresses.at(0))
                                   : fmt::format("the path {} -> {}", c.addresses.at(0), c.addresses.at(1));
      profile["sources"][key] = fmt::format("measured by calibrate --hosts over {} instead of through delay lines "
                                            "and NIC pacing (no RTT imposed); otherwise as on one machine: {}",
                                            path, profile["sources"].value(key, ""));
    }
    if (spreads && profile["spread"].contains(key) && profile["spread"][key].value("median", 0.0) > 0) {
      auto& spread = profile["spread"][key];
      const double scale = value / spread["median"].get<double>();
      for (const char* bound : {"median", "min", "max"}) spread[bound] = spread[bound].get<double>() * scale;
    }
    profile[key] = value;
  }
  profile["description"] =
      fmt::format("each figure the median of {} hosts' exsim calibrate ({}); {}", c.host_profiles.size(),
                  fmt::join(c.addresses, ", "),
                  one_machine ? fmt::format("the hosts share one machine's {} CPUs (one kernel boot id)", c.cores.front())
                              : std::string("each host has the cluster's cores_per_host of its own"));
  return profile;
}

}  // namespace exsim::workflows
