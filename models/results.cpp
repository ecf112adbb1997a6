#include "models/results.h"

#include "models/overrides.h"
#include "models/scenario.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <stdexcept>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace exsim {
namespace {

using ordered = nlohmann::ordered_json;

ordered cpu_json(const CpuByStage& c) {
  return ordered{{"serialize", c.serialize}, {"compress", c.compress},     {"decompress", c.decompress},
                 {"deserialize", c.deserialize}, {"rpc", c.rpc},           {"produce", c.produce},
                 {"consume", c.consume}};
}

const char* name_of(CapacityRule c) { return c == CapacityRule::kBytes ? "bytes" : "fixed_len"; }
const char* name_of(Compression c) {
  return c == Compression::kLz4 ? "lz4" : c == Compression::kNone ? "none" : "lz4_skip_local";
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
                 {"broadcast_serialize", p.broadcast_serialize == BroadcastSerialize::kOnce ? "once" : "per_channel"},
                 {"receiver_buffer", p.receiver_buffer},
                 {"sender_layout", p.sender_layout == SenderLayout::kHead ? "head" : "v4.3"}};
}

ordered run_json(const RunResult& r) {
  ordered out;
  out["scenario"] = r.scenario;
  out["policy"] = r.policy;
  out["source"] = r.source;
  if (r.mt_dop >= 0) out["config"] = config_json(r.mt_dop, r.config);
  out["wall_s"] = r.wall_s;
  out["rpcs"] = r.rpcs;
  out["bytes_wire"] = r.bytes_wire;
  out["bytes_uncompressed"] = r.bytes_uncompressed;
  out["cpu_s"] = cpu_json(r.cpu_s);
  out["rpc_network_us"] =
      ordered{{"mean", r.rpc_network_mean_us}, {"p50", r.rpc_network_p50_us}, {"p99", r.rpc_network_p99_us}};
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
  }
  out["exchanges"] = std::move(exchanges);
  ordered hosts = ordered::array();
  for (const auto& h : r.hosts) {
    hosts.push_back(ordered{{"name", h.name},
                            {"sender_peak_bytes", h.sender_peak_bytes},
                            {"sender_expected_bytes", h.sender_expected_bytes},
                            {"sender_worst_bytes", h.sender_worst_bytes},
                            {"receiver_peak_bytes", h.receiver_peak_bytes < 0 ? ordered(nullptr) : ordered(h.receiver_peak_bytes)}});
    if (h.rss_peak_bytes >= 0) hosts.back()["rss_peak_bytes"] = h.rss_peak_bytes;
    if (h.sender_peak_sum_bytes >= 0) hosts.back()["sender_peak_sum_bytes"] = h.sender_peak_sum_bytes;
  }
  out["hosts"] = std::move(hosts);
  auto tally = [](const PlannerTally& t) {
    return ordered{{"senders", t.senders}, {"over_estimate", t.over_estimate}, {"max_over_bytes", t.max_over_bytes}};
  };
  out["planner"] = tally(r.planner);
  for (const auto& [kind, t] : r.planner.by_kind) out["planner"]["by_kind"][kind] = tally(t);
  if (!r.rtt_nominal_ms.empty()) out["rtt_ms"]["nominal"] = r.rtt_nominal_ms;
  if (!r.rtt_achieved_ms.empty()) {
    out["rtt_ms"]["achieved"] = r.rtt_achieved_ms;
  }
  return out;
}

}  // namespace

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
}

std::string results_to_json(const std::vector<RunResult>& results) {
  ordered array = ordered::array();
  for (const auto& r : results) array.push_back(run_json(r));
  return array.dump(2) + "\n";
}

std::string sweep_result_line(const RunResult& result, std::size_t point, std::size_t points,
                              const std::vector<std::pair<std::string, std::string>>& settings) {
  ordered set = ordered::object();
  for (const auto& [key, value] : settings) set[key] = override_value(value);  // as --set reads it
  ordered line{{"sweep", ordered{{"point", point}, {"points", points}, {"set", set}}}};
  const ordered figures = run_json(result);
  for (const auto& [key, value] : figures.items()) line[key] = value;
  return line.dump() + "\n";
}

void write_file_atomically(const std::string& path, const std::string& content) {
  write_files_atomically({{path, content}});
}

void write_files_atomically(const std::vector<std::pair<std::string, std::string>>& files) {
  // Every file goes to PATH.tmp first; only when all are written does each
  // take its place, so that a failure leaves every target as it was.
  std::vector<std::filesystem::path> temps;
  auto drop_temps = [&] {
    for (const auto& t : temps) std::remove(t.c_str());
  };
  for (const auto& [path, content] : files) {
    std::filesystem::path temp(path);
    temp += ".tmp";
    std::FILE* f = std::fopen(temp.c_str(), "wb");
    if (!f) {
      const std::string reason = std::strerror(errno);
      drop_temps();
      throw std::runtime_error(fmt::format("{}: cannot write: {}", path, reason));
    }
    temps.push_back(temp);
    bool ok = std::fwrite(content.data(), 1, content.size(), f) == content.size();
    ok = (std::fclose(f) == 0) && ok;
    if (!ok) {
      const std::string reason = std::strerror(errno);
      drop_temps();
      throw std::runtime_error(fmt::format("{}: write failed: {}", path, reason));
    }
  }
  for (std::size_t i = 0; i < files.size(); ++i) {
    std::error_code ec;
    std::filesystem::rename(temps[i], files[i].first, ec);
    if (ec) {
      for (std::size_t j = i; j < temps.size(); ++j) std::remove(temps[j].c_str());
      throw std::runtime_error(fmt::format("{}: cannot rename into place: {}", files[i].first, ec.message()));
    }
  }
}

}  // namespace exsim
