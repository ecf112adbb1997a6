#include "models/results/results.h"

#include "models/base/histogram.h"
#include "models/rules/sender_memory.h"
#include "models/scenario/overrides.h"
#include "models/scenario/scenario.h"
#include "models/scenario/enum_names.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <string_view>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace exsim {

double RunResult::agents_process_cpu_s() const {
  double cpu = 0;
  for (const auto& h : hosts) cpu += std::max(0.0, h.process_cpu_s);
  return cpu;
}

CallTimes call_times_of(const LogHistogram& ns) {
  return {ns.mean() * 1e-3, ns.quantile(0.50) * 1e-3, ns.quantile(0.99) * 1e-3};
}
namespace {

using ordered = nlohmann::ordered_json;

ordered cpu_json(const CpuByStage& c) {
  return ordered{{"serialize", c.serialize},     {"compress", c.compress}, {"decompress", c.decompress},
                 {"deserialize", c.deserialize}, {"call", c.call},         {"rpc", c.rpc},
                 {"produce", c.produce},         {"consume", c.consume}};
}


// The policy as the scenario format writes it, sizes in bytes, and the mt_dop it ran at.
ordered config_json(int mt_dop, const Policy& p) {
  ordered buffer = p.buffer.kind == BufferSizing::Kind::kFlat
                       ? ordered{{"flat", p.buffer.flat}}
                       : ordered{{"budget", p.buffer.budget}, {"min", p.buffer.min}, {"max", p.buffer.max}};
  return ordered{{"mt_dop", mt_dop},
                 {"buffer", buffer},
                 {"capacity", name_of(p.capacity)},
                 {"in_flight", p.in_flight},
                 {"compression", name_of(p.compression)},
                 {"broadcast_serialize", name_of(p.broadcast_serialize)},
                 {"receiver_buffer", p.receiver_buffer},
                 {"sender_layout", name_of(p.sender_layout)}};
}

ordered run_json(const RunResult& r) {
  ordered out;
  out["scenario"] = r.scenario;
  out["policy"] = r.policy;
  out["source"] = r.source;
  if (r.mt_dop >= 0) out["config"] = config_json(r.mt_dop, r.config);
  out["wall_s"] = r.wall_s;
  if (r.wall_range.known()) {
    out["wall_s_range"] = ordered{{"cheap", r.wall_range.cheap_s}, {"dear", r.wall_range.dear_s}, {"from", r.wall_range.from}};
    if (r.wall_range.model_error > 0) out["wall_s_range"]["model_error"] = r.wall_range.model_error;
  }
  if (r.validated_region.checked) {
    out["validated_region"] = ordered{{"inside", r.validated_region.inside}};
    if (!r.validated_region.inside) out["validated_region"]["warning"] = r.validated_region.warning;
  }
  if (!r.sensitivity.empty()) {
    ordered swings = ordered::array();
    for (const CostSwing& c : r.sensitivity) {
      swings.push_back(ordered{{"cost", c.cost}, {"cheap", c.cheap}, {"dear", c.dear}, {"wall_cheap_s", c.wall_cheap_s},
                               {"wall_dear_s", c.wall_dear_s}});
    }
    out["sensitivity"] = swings;
  }
  out["rpcs"] = r.rpcs;
  out["bytes_wire"] = r.bytes_wire;
  out["bytes_uncompressed"] = r.bytes_uncompressed;
  out["cpu_s"] = cpu_json(r.cpu_s);
  const auto times = [](const CallTimes& t) { return ordered{{"mean", t.mean_us}, {"p50", t.p50_us}, {"p99", t.p99_us}}; };
  out["rpc_network_us"] = times(r.rpc_network);
  out["rpc_receiver_us"] = times(r.rpc_receiver);
  out["sender_wake_us"] = times(r.sender_wake);
  ordered queries = ordered::array();
  for (const auto& q : r.queries) queries.push_back(ordered{{"name", q.name}, {"repeat", q.repeat}, {"wall_s", q.wall_s}});
  out["queries"] = std::move(queries);
  ordered exchanges = ordered::array();
  for (const auto& x : r.exchanges) {
    exchanges.push_back(ordered{{"query", x.query},
                                {"id", x.id},
                                {"kind", x.kind},
                                {"repetition", x.repetition},
                                {"wall_s", x.wall_s},
                                {"rows", x.rows},
                                {"rpcs", x.rpcs},
                                {"eos_rpcs", x.eos_rpcs},
                                {"bytes_wire", x.bytes_wire},
                                {"bytes_uncompressed", x.bytes_uncompressed},
                                {"batch_bytes_mean", x.batch_bytes_mean},
                                {"sender_blocked_s", x.sender_blocked_s},
                                {"deferred_rpcs", x.deferred_rpcs}});
    if (x.lz4_ratio >= 0) exchanges.back()["lz4_ratio"] = x.lz4_ratio;
    if (x.rpc_network_us_mean >= 0) exchanges.back()["rpc_network_us_mean"] = x.rpc_network_us_mean;
    if (x.rpc_receiver_us_mean >= 0) exchanges.back()["rpc_receiver_us_mean"] = x.rpc_receiver_us_mean;
    if (x.sender_instance_peak_bytes >= 0) exchanges.back()["sender_instance_peak_bytes"] = x.sender_instance_peak_bytes;
    if (x.impala_tracked_peak_bytes >= 0) exchanges.back()["impala_tracked_peak_bytes"] = x.impala_tracked_peak_bytes;
    if (!x.sender_time.empty()) {
      const Bound bound = x.sender_time.largest();
      exchanges.back()["bound_by"] = to_string(bound);
      exchanges.back()["bound_share"] = x.sender_time.share(bound);
      ordered parts;
      for (std::size_t b = 0; b < kBounds; ++b) parts[std::string(to_string(static_cast<Bound>(b)))] = x.sender_time.seconds[b];
      exchanges.back()["sender_time_s"] = std::move(parts);
    }
  }
  out["exchanges"] = std::move(exchanges);
  ordered hosts = ordered::array();
  for (const auto& h : r.hosts) {
    hosts.push_back(ordered{{"name", h.name},
                            {"sender_peak_bytes", h.sender_peak_bytes},
                            {"sender_expected_bytes", h.sender_expected_bytes},
                            {"sender_worst_bytes", h.sender_worst_bytes},
                            {"receiver_peak_bytes", h.receiver_peak_bytes < 0 ? ordered(nullptr) : ordered(h.receiver_peak_bytes)}});
    if (h.sender_expected_held_bytes >= 0) hosts.back()["sender_expected_held_bytes"] = h.sender_expected_held_bytes;
    if (h.sender_worst_held_bytes >= 0) hosts.back()["sender_worst_held_bytes"] = h.sender_worst_held_bytes;
    if (h.rss_peak_bytes >= 0) hosts.back()["rss_peak_bytes"] = h.rss_peak_bytes;
    if (h.process_cpu_s >= 0) hosts.back()["process_cpu_s"] = h.process_cpu_s;
    if (h.speed_probe_before_us >= 0) hosts.back()["speed_probe_before_us"] = h.speed_probe_before_us;
    if (h.speed_probe_after_us >= 0) hosts.back()["speed_probe_after_us"] = h.speed_probe_after_us;
    if (h.sender_peak_sum_bytes >= 0) hosts.back()["sender_peak_sum_bytes"] = h.sender_peak_sum_bytes;
    if (!h.cores_awake.empty()) hosts.back()["cores_awake"] = h.cores_awake;
  }
  out["hosts"] = std::move(hosts);
  auto tally = [](const PlannerTally& t) {
    return ordered{{"senders", t.senders}, {"over_estimate", t.over_estimate}, {"max_over_bytes", t.max_over_bytes}};
  };
  out["planner"] = tally(r.planner);
  for (const auto& [kind, t] : r.planner.by_kind) out["planner"]["by_kind"][kind] = tally(t);
  if (!r.rtt_nominal_ms.empty()) out["rtt_ms"]["nominal"] = r.rtt_nominal_ms;
  if (!r.host_groups.empty()) out["rtt_ms"]["groups"] = r.host_groups;
  if (!r.rtt_achieved_ms.empty()) {
    out["rtt_ms"]["achieved"] = r.rtt_achieved_ms;
  }
  if (r.fast_forward.applied()) {
    out["fast_forward"] = ordered{{"shortened", r.fast_forward.shortened},
                                  {"rows_simulated", r.fast_forward.rows_simulated},
                                  {"along_line", r.fast_forward.along_line}};
  } else if (!r.fast_forward.declined.empty()) {
    out["fast_forward"] = ordered{{"declined", r.fast_forward.declined}};
  }
  if (r.longest_stall.seconds > 0) {
    out["longest_stall"] = ordered{{"s", r.longest_stall.seconds}, {"where", r.longest_stall.where},
                                   {"unsteady", r.unsteady()}};
  }
  return out;
}

}  // namespace

TimeByBound RunResult::sender_time() const {
  TimeByBound sum;
  for (const auto& x : exchanges) sum += x.sender_time;
  return sum;
}

void RunResult::add_exchange(ExchangeResult exchange) {
  exchange.batch_bytes_mean =
      exchange.rpcs > 0 ? exchange.bytes_uncompressed / static_cast<double>(exchange.rpcs) : 0;
  rpcs += exchange.rpcs;
  bytes_wire += exchange.bytes_wire;
  bytes_uncompressed += exchange.bytes_uncompressed;
  exchanges.push_back(std::move(exchange));
}

CpuByStage& operator+=(CpuByStage& a, const CpuByStage& b) {
  a.produce += b.produce;
  a.serialize += b.serialize;
  a.compress += b.compress;
  a.rpc += b.rpc;
  a.decompress += b.decompress;
  a.deserialize += b.deserialize;
  a.call += b.call;
  a.consume += b.consume;
  return a;
}

void describe_run(RunResult& result, const Scenario& scenario, const Policy& policy, const std::string& source) {
  result.scenario = scenario.name;
  result.policy = policy.name;
  result.source = source;
  result.mt_dop = scenario.mt_dop;
  result.config = policy;
  const int n = scenario.cluster.rtt.hosts();
  result.rtt_nominal_ms.assign(static_cast<std::size_t>(n), std::vector<double>(static_cast<std::size_t>(n)));
  for (int a = 0; a < n; ++a) {
    for (int b = 0; b < n; ++b) result.rtt_nominal_ms[a][b] = scenario.cluster.rtt.rtt_ms(a, b);
  }
  result.host_groups.clear();
  for (const Host& h : scenario.cluster.hosts) result.host_groups.push_back(h.group);
}

void describe_hosts(RunResult& result, const Scenario& scenario, const Policy& policy,
                    const std::vector<Bytes>& sender_peak, const std::vector<Bytes>& receiver_peak) {
  const auto statics = static_sender_memory(scenario, policy);
  for (std::size_t h = 0; h < scenario.cluster.hosts.size(); ++h) {
    const StaticSenderBytes& s = statics[h];
    HostResult host{scenario.cluster.hosts[h].name, sender_peak.at(h), s.expected, s.worst, receiver_peak.at(h)};
    host.sender_expected_held_bytes = s.expected_held;
    host.sender_worst_held_bytes = s.worst_held;
    result.hosts.push_back(host);
  }
}

namespace {
constexpr std::string_view kNotHeld = "not held";  // as in "not held: why"
}  // namespace

std::string cores_refused_state(const std::string& why) { return std::string(kNotHeld) + ": " + why; }

bool cores_refused(const std::string& cores_awake) { return cores_awake.starts_with(kNotHeld); }

std::string cores_refused_why(const std::string& cores_awake) {
  if (!cores_refused(cores_awake)) return "";
  std::string why = cores_awake.substr(kNotHeld.size());
  why.erase(0, why.find_first_not_of(": "));
  return why.empty() ? "no reason given" : why;
}

std::string cores_not_held(const RunResult& result) {
  std::string said;
  for (const HostResult& h : result.hosts) {
    if (!cores_refused(h.cores_awake)) continue;
    said += fmt::format("{}{}'s cores not held awake ({})", said.empty() ? "" : ", ", h.name,
                        cores_refused_why(h.cores_awake));
  }
  return said;
}

std::string results_to_json(const std::vector<RunResult>& results) {
  ordered array = ordered::array();
  for (const auto& r : results) array.push_back(run_json(r));
  return array.dump(2) + "\n";
}

std::string sweep_result_line(const RunResult& result, std::size_t point, std::size_t points,
                              const std::vector<std::pair<std::string, std::string>>& settings,
                              const std::vector<std::pair<std::string, std::vector<std::string>>>& vary) {
  ordered set = ordered::object();
  for (const auto& [key, value] : settings) set[key] = override_value(value);  // as --set reads it
  ordered varied = ordered::object();
  for (const auto& [key, values] : vary) {
    varied[key] = ordered::array();
    for (const auto& value : values) varied[key].push_back(override_value(value));
  }
  ordered line{{"sweep", ordered{{"point", point}, {"points", points}, {"set", set}, {"vary", varied}}}};
  const ordered figures = run_json(result);
  for (const auto& [key, value] : figures.items()) line[key] = value;
  return line.dump() + "\n";
}

void write_file_atomically(const std::string& path, const std::string& content) {
  write_files_atomically({{path, content}});
}

void write_files_atomically(const std::vector<std::pair<std::string, std::string>>& files) {
  // Every file goes to a temporary file of its own beside it first (PATH.<pid>.tmp,
  // made anew: a user's file is never taken for one); only when all are written
  // does each take its place by a rename, so that a failure leaves every target
  // as it was. A link is followed: the file it names is replaced, the link kept.
  // A pipe or device (/dev/stdout, a FIFO) cannot be replaced: it is written to
  // as it is, last, once the others are in place.
  namespace fs = std::filesystem;
  std::vector<fs::path> temps, targets;
  std::vector<std::size_t> in_place;  // files written straight to their target
  auto drop_temps = [&] {
    for (const auto& t : temps) std::remove(t.c_str());
  };
  auto put = [](const fs::path& to, const std::string& content, int flags) {
    const int fd = ::open(to.c_str(), flags, 0666);
    if (fd < 0) return errno;
    std::size_t done = 0;
    while (done < content.size()) {
      const ssize_t n = ::write(fd, content.data() + done, content.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        const int error = n < 0 ? errno : EIO;
        ::close(fd);
        return error;
      }
      done += static_cast<std::size_t>(n);
    }
    return ::close(fd) == 0 ? 0 : errno;
  };
  for (std::size_t i = 0; i < files.size(); ++i) {
    const auto& [path, content] = files[i];
    if (path.empty()) {
      drop_temps();
      throw std::runtime_error("cannot write a file with an empty path");
    }
    std::error_code ec;
    fs::path target = path;  // a link's file, even one not made yet
    for (int hops = 0; hops < 40 && fs::is_symlink(target, ec); ++hops) {
      const fs::path to = fs::read_symlink(target, ec);
      target = to.is_absolute() ? to : target.parent_path() / to;
    }
    targets.push_back(target);
    if (fs::exists(target, ec) && !fs::is_regular_file(target, ec)) {
      in_place.push_back(i);
      continue;
    }
    const fs::path temp = fs::path(target) += fmt::format(".{}.tmp", ::getpid());
    const int error = put(temp, content, O_WRONLY | O_CREAT | O_EXCL);
    if (error != EEXIST) temps.push_back(temp);
    if (error != 0) {
      drop_temps();
      throw std::runtime_error(fmt::format("{}: cannot write: {}", path, std::strerror(error)));
    }
  }
  std::size_t next_temp = 0;
  for (std::size_t i = 0; i < files.size(); ++i) {
    if (std::find(in_place.begin(), in_place.end(), i) != in_place.end()) continue;
    std::error_code ec;
    fs::rename(temps[next_temp], targets[i], ec);
    if (ec) {
      for (std::size_t j = next_temp; j < temps.size(); ++j) std::remove(temps[j].c_str());
      throw std::runtime_error(fmt::format("{}: cannot rename into place: {}", files[i].first, ec.message()));
    }
    ++next_temp;
  }
  for (const std::size_t i : in_place) {
    const int error = put(targets[i], files[i].second, O_WRONLY | O_TRUNC);
    if (error != 0) throw std::runtime_error(fmt::format("{}: cannot write: {}", files[i].first, std::strerror(error)));
  }
}

}  // namespace exsim
