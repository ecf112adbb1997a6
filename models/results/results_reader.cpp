#include "models/results/results_reader.h"

#include <limits>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "models/scenario/loader_parts.h"
#include "models/scenario/scenario_loader.h"

namespace exsim {
namespace {

constexpr std::int64_t kMaxCount = std::numeric_limits<std::int64_t>::max();

double seconds(const JsonNode& node) { return node.required("wall_s").number(0, 0); }

CpuByStage read_cpu(const JsonNode& node) {
  CpuByStage c;
  if (!node.expect_object()) return c;
  c.serialize = node.required("serialize").number(0, 0);
  c.compress = node.required("compress").number(0, 0);
  c.decompress = node.required("decompress").number(0, 0);
  c.deserialize = node.required("deserialize").number(0, 0);
  // Results written before the calls' share on the query's threads was counted apart have it in rpc.
  if (node.member("call").present()) c.call = node.member("call").number(0, 0);
  c.rpc = node.required("rpc").number(0, 0);
  c.produce = node.required("produce").number(0, 0);
  c.consume = node.required("consume").number(0, 0);
  return c;
}

ExchangeResult read_exchange(const JsonNode& node) {
  ExchangeResult x;
  if (!node.expect_object()) return x;
  x.query = node.required("query").string();
  x.id = node.required("id").string();
  x.kind = node.required("kind").string();
  x.repetition = static_cast<int>(node.required("repetition").integer(0, 0, 1 << 30));
  x.wall_s = seconds(node);
  x.rows = node.required("rows").integer(0, 0, kMaxCount);
  x.rpcs = node.required("rpcs").integer(0, 0, kMaxCount);
  x.eos_rpcs = node.required("eos_rpcs").integer(0, 0, kMaxCount);
  x.bytes_wire = node.required("bytes_wire").number(0, 0);
  x.bytes_uncompressed = node.required("bytes_uncompressed").number(0, 0);
  x.batch_bytes_mean = node.required("batch_bytes_mean").number(0, 0);
  x.sender_blocked_s = node.required("sender_blocked_s").number(0, 0);
  x.deferred_rpcs = node.required("deferred_rpcs").integer(0, 0, kMaxCount);
  if (node.member("lz4_ratio").present()) x.lz4_ratio = node.member("lz4_ratio").number(-1, 0);
  if (node.member("rpc_network_us_mean").present()) x.rpc_network_us_mean = node.member("rpc_network_us_mean").number(0, 0);
  if (node.member("rpc_receiver_us_mean").present()) x.rpc_receiver_us_mean = node.member("rpc_receiver_us_mean").number(0, 0);
  if (const JsonNode peak = node.member("sender_instance_peak_bytes"); peak.present()) {
    x.sender_instance_peak_bytes = peak.integer(0, 0);
  }
  if (const JsonNode peak = node.member("impala_tracked_peak_bytes"); peak.present()) {
    x.impala_tracked_peak_bytes = peak.integer(0, 0);
  }
  if (const JsonNode parts = node.member("sender_time_s"); parts.present()) {
    for (std::size_t b = 0; b < kBounds; ++b) {
      x.sender_time.seconds[b] = parts.required(std::string(to_string(static_cast<Bound>(b)))).number(0, 0);
    }
  }
  return x;
}

HostResult read_host(const JsonNode& node) {
  HostResult h;
  if (!node.expect_object()) return h;
  h.name = node.required("name").string();
  h.sender_peak_bytes = node.required("sender_peak_bytes").integer(0, 0, kMaxCount);
  h.sender_expected_bytes = node.required("sender_expected_bytes").integer(0, 0, kMaxCount);
  h.sender_worst_bytes = node.required("sender_worst_bytes").integer(0, 0, kMaxCount);
  const JsonNode receiver = node.required("receiver_peak_bytes");
  h.receiver_peak_bytes = receiver.present() && receiver.json().is_null() ? -1 : receiver.integer(0, 0, kMaxCount);
  for (auto [key, field] : {std::pair{"sender_expected_held_bytes", &HostResult::sender_expected_held_bytes},
                            std::pair{"sender_worst_held_bytes", &HostResult::sender_worst_held_bytes}}) {
    if (node.member(key).present()) h.*field = node.member(key).integer(-1, 0, kMaxCount);
  }
  if (node.member("rss_peak_bytes").present()) h.rss_peak_bytes = node.member("rss_peak_bytes").integer(-1, 0, kMaxCount);
  for (auto [key, field] : {std::pair{"process_cpu_s", &HostResult::process_cpu_s},
                            std::pair{"speed_probe_before_us", &HostResult::speed_probe_before_us},
                            std::pair{"speed_probe_after_us", &HostResult::speed_probe_after_us}}) {
    if (node.member(key).present()) h.*field = node.member(key).number(-1, 0);
  }
  if (node.member("sender_peak_sum_bytes").present()) {
    h.sender_peak_sum_bytes = node.member("sender_peak_sum_bytes").integer(-1, 0, kMaxCount);
  }
  if (node.member("cores_awake").present()) h.cores_awake = node.member("cores_awake").string();
  return h;
}

PlannerTally read_tally(const JsonNode& node) {
  PlannerTally t;
  if (!node.expect_object()) return t;
  t.senders = node.required("senders").integer(0, 0, kMaxCount);
  t.over_estimate = node.required("over_estimate").integer(0, 0, kMaxCount);
  t.max_over_bytes = node.required("max_over_bytes").integer(0, 0, kMaxCount);
  return t;
}

std::vector<std::vector<double>> read_matrix(const JsonNode& node) {
  std::vector<std::vector<double>> m;
  if (!node.expect_array()) return m;
  for (std::size_t i = 0; i < node.size(); ++i) {
    const JsonNode row = node.element(i);
    m.emplace_back();
    if (!row.expect_array()) continue;
    for (std::size_t j = 0; j < row.size(); ++j) m.back().push_back(row.element(j).number(0));
  }
  return m;
}

}  // namespace

std::vector<CostSwing> read_sensitivity(const JsonNode& result) {
  std::vector<CostSwing> swings;
  const JsonNode list = result.member("sensitivity");
  if (!list.present() || !list.expect_array()) return swings;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const JsonNode c = list.element(i);
    if (!c.expect_object()) continue;
    swings.push_back({c.required("cost").string(), c.required("cheap").number(0, 0), c.required("dear").number(0, 0),
                      c.required("wall_cheap_s").number(0, 0), c.required("wall_dear_s").number(0, 0)});
  }
  return swings;
}

RegionNote read_region_note(const JsonNode& result) {
  RegionNote note;
  const JsonNode region = result.member("validated_region");
  if (!region.present() || !region.expect_object()) return note;
  note.checked = true;
  note.inside = region.required("inside").boolean(true);
  if (!note.inside) note.warning = region.required("warning").string();
  return note;
}

RunResult read_run_result(const JsonNode& node) {
  RunResult r;
  if (!node.expect_object()) return r;
  r.scenario = node.required("scenario").string();
  r.policy = node.required("policy").string();
  r.source = node.required("source").string();
  if (const JsonNode config = node.member("config"); config.present() && config.expect_object()) {
    r.mt_dop = static_cast<int>(config.required("mt_dop").integer(0, 0, 1024));
    // The policy as the scenario format writes it, beside the mt_dop it ran at.
    nlohmann::ordered_json policy = config.json();
    policy.erase("mt_dop");
    r.config = read_policy(JsonNode(&policy, config.pointer(), &config.diagnostics()), r.policy);
  }
  r.wall_s = seconds(node);
  if (const JsonNode range = node.member("wall_s_range"); range.present() && range.expect_object()) {
    r.wall_range = {range.required("cheap").number(0, 0), range.required("dear").number(0, 0),
                    range.required("from").string(), range.member("model_error").number(0, 0)};
  }
  r.sensitivity = read_sensitivity(node);
  r.validated_region = read_region_note(node);
  r.rpcs = node.required("rpcs").integer(0, 0, kMaxCount);
  r.bytes_wire = node.required("bytes_wire").number(0, 0);
  r.bytes_uncompressed = node.required("bytes_uncompressed").number(0, 0);
  r.cpu_s = read_cpu(node.required("cpu_s"));
  const auto times = [](const JsonNode& t, CallTimes& out) {
    if (!t.expect_object()) return;
    out = {t.required("mean").number(0, 0), t.required("p50").number(0, 0), t.required("p99").number(0, 0)};
  };
  times(node.required("rpc_network_us"), r.rpc_network);
  // Results written before receiver times were reported have none.
  if (const JsonNode receiver = node.member("rpc_receiver_us"); receiver.present()) times(receiver, r.rpc_receiver);
  if (const JsonNode wake = node.member("sender_wake_us"); wake.present()) times(wake, r.sender_wake);
  if (const JsonNode queries = node.required("queries"); queries.expect_array()) {
    for (std::size_t i = 0; i < queries.size(); ++i) {
      const JsonNode q = queries.element(i);
      if (!q.expect_object()) continue;
      r.queries.push_back({q.required("name").string(), static_cast<int>(q.required("repeat").integer(1, 1, 1 << 30)),
                           seconds(q)});
    }
  }
  if (const JsonNode exchanges = node.required("exchanges"); exchanges.expect_array()) {
    for (std::size_t i = 0; i < exchanges.size(); ++i) r.exchanges.push_back(read_exchange(exchanges.element(i)));
  }
  if (const JsonNode hosts = node.required("hosts"); hosts.expect_array()) {
    for (std::size_t i = 0; i < hosts.size(); ++i) r.hosts.push_back(read_host(hosts.element(i)));
  }
  if (const JsonNode planner = node.required("planner"); planner.present()) {
    static_cast<PlannerTally&>(r.planner) = read_tally(planner);
    if (const JsonNode by_kind = planner.member("by_kind"); by_kind.present() && by_kind.expect_object()) {
      for (const auto& kind : by_kind.keys()) r.planner.by_kind[kind] = read_tally(by_kind.member(kind));
    }
  }
  if (const JsonNode rtt = node.member("rtt_ms"); rtt.present() && rtt.expect_object()) {
    if (rtt.member("nominal").present()) r.rtt_nominal_ms = read_matrix(rtt.member("nominal"));
    if (rtt.member("achieved").present()) r.rtt_achieved_ms = read_matrix(rtt.member("achieved"));
    if (const JsonNode groups = rtt.member("groups"); groups.present() && groups.expect_array()) {
      for (std::size_t i = 0; i < groups.size(); ++i) r.host_groups.push_back(groups.element(i).string());
    }
  }
  if (const JsonNode fast = node.member("fast_forward"); fast.present() && fast.expect_object()) {
    if (const JsonNode shortened = fast.member("shortened"); shortened.present() && shortened.expect_array()) {
      for (std::size_t i = 0; i < shortened.size(); ++i) r.fast_forward.shortened.push_back(shortened.element(i).string());
      if (const JsonNode rows = fast.required("rows_simulated"); rows.expect_array()) {
        for (std::size_t i = 0; i < rows.size(); ++i) r.fast_forward.rows_simulated.push_back(rows.element(i).number(0, 0, true, 1));
        if (rows.size() != shortened.size()) {
          rows.error(fmt::format("expected a share for each of the {} shortened exchanges, got {}", shortened.size(),
                                 rows.size()));
        }
      }
      r.fast_forward.along_line = fast.member("along_line").boolean(false);
    }
    if (fast.member("declined").present()) r.fast_forward.declined = fast.member("declined").string();
  }
  if (const JsonNode stall = node.member("longest_stall"); stall.present() && stall.expect_object()) {
    r.longest_stall.seconds = stall.required("s").number(0, 0);
    r.longest_stall.where = stall.required("where").string();
  }
  return r;
}

CostProfile read_cost_profile(const JsonNode& node) {
  CostProfile costs = read_costs(node, reference_cost_profile());
  if (node.present() && node.is_object() && node.member("description").present()) {
    costs.source = node.member("description").string();
  }
  return costs;
}

}  // namespace exsim
