#include "workflows/profile_replay.h"

#include "models/impala/profile_titles.h"

#include <cmath>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "models/base/json_reader.h"
#include "models/base/text_table.h"
#include "models/impala/profile_log.h"
#include "models/scenario/scenario_loader.h"
#include "sim/simulate.h"

namespace exsim::workflows {
namespace {

const ExchangeResult* find_exchange(const RunResult& result, const std::string& query, const std::string& id) {
  for (const ExchangeResult& x : result.exchanges) {
    if (x.query == query && x.id == id) return &x;
  }
  return nullptr;
}

void compare(ProfileReplay& replay, const RunResult& result) {
  double serialize_ns = 0, deserialize_ns = 0;
  bool every_serialize = true, every_deserialize = true;
  for (const ImportedExchange& m : replay.imported.measured) {
    const ExchangeResult* x = find_exchange(result, m.query, m.id);
    if (!x) continue;
    const SenderCounters& c = m.counters;
    const std::string name = m.query + " " + m.id;
    const auto add = [&](const std::optional<double>& profile, double model, const char* figure, const char* counter) {
      if (profile) replay.rows.push_back({name, figure, counter, model, *profile});
    };
    // RpcSuccess counts every call answered, the end-of-stream ones too (on
    // Impala's q72 each exchange's RpcSuccess less its EosSent is its batches).
    add(c.rpcs, static_cast<double>(x->rpcs + x->eos_rpcs), "calls", "RpcSuccess");
    add(c.eos_rpcs, static_cast<double>(x->eos_rpcs), "end-of-stream calls", "EosSent");
    // The profile counts a batch's bytes as serialized, without the RPC's framing.
    const double framing = static_cast<double>(replay.costs.costs.wire_overhead_bytes) * static_cast<double>(x->rpcs + x->eos_rpcs);
    add(c.bytes_sent, x->bytes_wire - framing, "bytes sent", "TotalBytesSent");
    // Impala counts a deserialized row's 8 B tuple pointer where the model
    // counts its 4 B offset (outbound-row-batch.h:119-125).
    add(c.uncompressed, x->bytes_uncompressed + 4 * static_cast<double>(x->rows), "bytes before LZ4",
        "UncompressedRowBatchSize");
    if (c.network && x->rpc_network_us_mean >= 0) add(c.network->mean_ns * 1e-3, x->rpc_network_us_mean, "network us a call", "RpcNetworkTime");
    if (c.receiver && x->rpc_receiver_us_mean >= 0) add(c.receiver->mean_ns * 1e-3, x->rpc_receiver_us_mean, "receiver us a call", "RpcRecvrTime");
    // Impala's counter is its tracker's: the sender's strings, not the offsets
    // beside them (models/rules/tracked_strings.h).
    if (c.peak_memory_max && x->impala_tracked_peak_bytes >= 0) {
      add(c.peak_memory_max, static_cast<double>(x->impala_tracked_peak_bytes), "largest sender's peak bytes",
          "PeakMemoryUsage");
    }
    if (c.total_ns && !x->sender_time.empty()) {
      // The sink's own time: its senders' lives less the operator feeding them.
      add(*c.total_ns * 1e-6, (x->sender_time.total() - x->sender_time[Bound::kProducer]) * 1e3, "sender ms",
          "TotalTime");
    }
    if (m.receivers.deferred) add(m.receivers.deferred, static_cast<double>(x->deferred_rpcs), "calls held back",
                                  "TotalRPCsDeferred");
    if (m.receivers.deserialize_ns) deserialize_ns += *m.receivers.deserialize_ns;
    every_deserialize = every_deserialize && m.receivers.deserialize_ns.has_value();
    if (c.serialize_ns) serialize_ns += *c.serialize_ns;
    every_serialize = every_serialize && c.serialize_ns.has_value();
  }
  if (every_serialize && serialize_ns > 0) {
    // Impala times LZ4 inside SerializeBatchTime; the model keeps them apart.
    replay.rows.push_back({"all exchanges", "serialization ms", "SerializeBatchTime",
                           (result.cpu_s.serialize + result.cpu_s.compress) * 1e3, serialize_ns * 1e-6});
  }
  if (every_deserialize && deserialize_ns > 0) {
    replay.rows.push_back({"all exchanges", "deserialization ms", "DeserializeRowBatchTime",
                           (result.cpu_s.deserialize + result.cpu_s.decompress) * 1e3, deserialize_ns * 1e-6});
  }
}

}  // namespace

ProfileReplay replay_profile(const std::string& file, const ProfileImportOptions& options, const CostProfile& base,
                             const std::string& base_name) {
  ProfileReplay replay;
  replay.file = file;
  const std::string text = read_text_file(file, "profile");
  const ImpalaProfile profile = ImpalaProfile::parse(profile_as_text(text, file), file);
  replay.imported = import_impala_profile(profile, options);
  Scenario scenario = parse_scenario(replay.imported.json, fmt::format("the scenario imported from {}", file));
  replay.costs = derive_costs(replay.imported, scenario, base, base_name, impala_version(profile));
  scenario.costs = replay.costs.costs;
  replay.predicted = simulate(scenario, scenario.policies.front());
  compare(replay, replay.predicted);
  return replay;
}

std::string replay_table(const ProfileReplay& replay, bool markdown) {
  Table table({"exchange", "figure", "model", "profile", "error", "counter"});
  for (const ReplayRow& r : replay.rows) {
    const auto number = [](double v) { return std::abs(v) >= 100 ? fmt::format("{:.0f}", v) : fmt::format("{:.3g}", v); };
    table.add_row({r.exchange, r.figure, number(r.model), number(r.profile), fmt::format("{:+.1f}%", 100 * r.error()), r.counter});
  }
  std::string out = fmt::format("{} replayed: the model at the profile's costs ({}), against its counters\n\n",
                                replay.file, replay.costs.derived.empty() ? "none derived" : fmt::format("{} derived", fmt::join(replay.costs.derived, ", ")));
  out += markdown ? table.render_markdown() : table.render();
  for (const auto& w : replay.costs.warnings) out += fmt::format("\nwarning: {}", w);
  if (!replay.costs.warnings.empty()) out += "\n";
  return out;
}

std::string replay_json(const ProfileReplay& replay) {
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  for (const ReplayRow& r : replay.rows) {
    rows.push_back({{"exchange", r.exchange}, {"figure", r.figure}, {"counter", r.counter}, {"model", r.model},
                    {"profile", r.profile}, {"error", r.error()}});
  }
  nlohmann::ordered_json out;
  out["profile"] = replay.file;
  out["derived_costs"] = replay.costs.derived;
  out["warnings"] = replay.costs.warnings;
  out["rows"] = rows;
  return out.dump(2) + "\n";
}

}  // namespace exsim::workflows
