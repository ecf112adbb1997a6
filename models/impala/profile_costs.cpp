#include "models/impala/profile_costs.h"

#include <fmt/format.h>

#include "models/scenario/cost_figures.h"

namespace exsim {

namespace {

// Impala times a stage with its LZ4: SerializeBatchTime serialization and
// compression, DeserializeRowBatchTime decompression and deserialization. The
// exchanges whose batches went uncompressed give the stage alone, over its
// tuple bytes less the base's per-row and per-batch parts; with that rate (or
// the base's), the compressed ones give LZ4, over the bytes it ran on (not the
// batches to a sender's own daemon, IMPALA-12430).
struct StageSums {
  double ns = 0;         // the counter
  double tuple = 0;      // tuple bytes through the stage
  double fixed_ns = 0;   // the base's per-row and per-batch parts of it
  double lz4_tuple = 0;  // of them, those LZ4 ran on
  int exchanges = 0;
};

struct Stage {
  const char* counter;    // "SerializeBatchTime"
  const char* went;       // "sent" / "arrived"
  const char* fixed;      // the base's figures in fixed_ns
  double CostProfile::*rate;
  const char* rate_key;
  double CostProfile::*lz4_rate;
  const char* lz4_key;
};

void split_stage(const Stage& stage, const StageSums& plain, const StageSums& compressed, const CostProfile& base,
                 DerivedCosts& out) {
  const auto describe = [&](const StageSums& s) {
    return fmt::format("{} {:.3f} ms over {:.0f} tuple bytes of {} exchange(s)", stage.counter, s.ns * 1e-6, s.tuple,
                       s.exchanges);
  };
  double ns_per_byte = base.*stage.rate > 0 ? 1e9 / (base.*stage.rate) : 0;
  if (plain.exchanges > 0) {
    const double left = plain.ns - plain.fixed_ns;
    if (left > 0) {
      ns_per_byte = left / plain.tuple;
      out.costs.*stage.rate = 1e9 / ns_per_byte;
      out.sources[stage.rate_key] = fmt::format("derived from the profile: {} {} uncompressed, less the base's {}",
                                                describe(plain), stage.went, stage.fixed);
      out.derived.push_back(stage.rate_key);
    } else {
      out.warnings.push_back(fmt::format("{}: {} is no more than the base's {}: kept the base's", stage.rate_key,
                                         describe(plain), stage.fixed));
    }
  }
  if (compressed.exchanges > 0 && compressed.lz4_tuple > 0) {
    const double alone = compressed.fixed_ns + compressed.tuple * ns_per_byte;
    const std::string counted = fmt::format(
        "{} {} compressed (LZ4 on {:.0f} B of it, the rest to or from the senders' own daemons), less {:.3f} ms of "
        "the stage alone at {}",
        describe(compressed), stage.went, compressed.lz4_tuple, alone * 1e-6,
        plain.exchanges > 0 ? "the rate above" : "the base's rates");
    if (compressed.ns > alone) {
      out.costs.*stage.lz4_rate = compressed.lz4_tuple / ((compressed.ns - alone) * 1e-9);
      out.sources[stage.lz4_key] = "derived from the profile: " + counted;
      out.derived.push_back(stage.lz4_key);
    } else {
      out.warnings.push_back(fmt::format("{}: {} leaves nothing: kept the base's", stage.lz4_key, counted));
    }
  }
}

// Each exchange's tuple bytes: the counters count a broadcast's every copy, a
// row as 4 B of offset sent and 8 B of tuple pointer uncompressed
// (outbound-row-batch.h:119-125). A sender serializes a broadcast's batch once,
// each receiver deserializes its copy.
void derive_stages(const ImportedScenario& imported, const CostProfile& base, DerivedCosts& out) {
  StageSums serialize_plain, serialize_lz4, deserialize_plain, deserialize_lz4;
  for (const ImportedExchange& x : imported.measured) {
    const SenderCounters& c = x.counters;
    if (!c.uncompressed || !c.rows || !c.bytes_sent) continue;
    const double rows = *c.rows * x.copies;
    const double tuple = *c.uncompressed - 8 * rows;
    if (tuple <= 0) continue;
    const bool compressed = *c.bytes_sent - 4 * rows < tuple;  // LZ4 ran and its output was kept
    const double lz4_share = compressed ? 1 - x.local_share : 0;
    if (c.serialize_ns) {
      StageSums& s = compressed ? serialize_lz4 : serialize_plain;
      s.ns += *c.serialize_ns;
      s.tuple += tuple / x.copies;
      s.fixed_ns += *c.rows * base.serialize_row_ns;
      s.lz4_tuple += tuple / x.copies * lz4_share;
      ++s.exchanges;
    }
    if (const ReceiverCounters& r = x.receivers; r.deserialize_ns && r.batches) {
      StageSums& s = compressed ? deserialize_lz4 : deserialize_plain;
      s.ns += *r.deserialize_ns;
      s.tuple += tuple;
      s.fixed_ns += rows * base.deserialize_row_ns + *r.batches * base.deserialize_batch_us * 1e3;
      s.lz4_tuple += tuple * lz4_share;
      ++s.exchanges;
    }
  }
  split_stage({"SerializeBatchTime", "sent", "serialize_row_ns a row", &CostProfile::serialize_bytes_per_s,
               "serialize_bytes_per_s", &CostProfile::lz4_compress_bytes_per_s, "lz4_compress_bytes_per_s"},
              serialize_plain, serialize_lz4, base, out);
  split_stage({"DeserializeRowBatchTime", "arrived", "deserialize_row_ns a row and deserialize_batch_us a batch",
               &CostProfile::deserialize_bytes_per_s, "deserialize_bytes_per_s",
               &CostProfile::lz4_decompress_bytes_per_s, "lz4_decompress_bytes_per_s"},
              deserialize_plain, deserialize_lz4, base, out);
}

// The calls' network time less the RTT and their bytes' time on the NIC.
void derive_latency(const ImportedScenario& imported, const Scenario& scenario, const CostProfile& base, DerivedCosts& out) {
  double weighted = 0, samples = 0, calls = 0, bytes = 0;
  for (const ImportedExchange& x : imported.measured) {
    const SenderCounters& c = x.counters;
    if (!c.network || !c.rpcs || !c.bytes_sent || *c.rpcs <= 0) continue;
    weighted += c.network->mean_ns * c.network->samples;
    samples += c.network->samples;
    calls += *c.rpcs;
    bytes += *c.bytes_sent;
  }
  if (samples <= 0) return;
  const double network_us = weighted / samples * 1e-3;
  const double rtt_us = scenario.cluster.rtt.hosts() > 1 ? scenario.cluster.rtt.rtt_ms(0, 1) * 1e3 : 0;
  const double call_bytes = bytes / calls + static_cast<double>(base.wire_overhead_bytes);
  const double wire_us = call_bytes * 8 / (scenario.cluster.nic_gbps * 1e3);
  const double latency = network_us - rtt_us - wire_us;
  const std::string counted = fmt::format(
      "RpcNetworkTime {:.1f} us a call ({:.0f} samples) less the scenario's RTT {:.1f} us and {:.1f} us of a call's "
      "{:.0f} B at {:g} Gbit/s; the RTT is the scenario's, so their sum is what the profile measured",
      network_us, samples, rtt_us, wire_us, call_bytes, scenario.cluster.nic_gbps);
  if (latency < 0) {
    out.costs.rpc_latency_us = 0;
    out.sources["rpc_latency_us"] = "derived from the profile: " + counted + ": below 0, taken as 0 (the RTT is too large)";
    out.warnings.push_back("rpc_latency_us: the profile's network time per call is below the scenario's RTT and wire "
                           "time; set cluster.rtt_ms nearer the cluster's");
  } else {
    out.costs.rpc_latency_us = latency;
    out.sources["rpc_latency_us"] = "derived from the profile: " + counted;
  }
  out.derived.push_back("rpc_latency_us");
}

}  // namespace

DerivedCosts derive_costs(const ImportedScenario& imported, const Scenario& scenario, const CostProfile& base,
                          const std::string& base_name, const std::string& version) {
  DerivedCosts out;
  out.costs = base;
  derive_stages(imported, base, out);
  derive_latency(imported, scenario, base, out);
  // The base's spread stays with the figures taken from it, not the derived ones.
  for (const std::string& key : out.derived) out.costs.spread.erase(key);
  for (const CostFigure& figure : cost_figures()) {
    const std::string key(figure.key);
    if (!out.sources.count(key)) out.sources[key] = "from the base profile, " + base_name + ": the profile does not give it";
  }
  if (version.find("DEBUG") != std::string::npos) {
    out.warnings.push_back(fmt::format("the profile comes from a DEBUG build of Impala ({}): its times, and the figures "
                                       "derived from them, are a debug build's, several times a release build's",
                                       version));
  }
  return out;
}

}  // namespace exsim
