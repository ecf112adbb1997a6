#include "models/impala/profile_costs.h"

#include <fmt/format.h>

#include "models/scenario/cost_figures.h"

namespace exsim {

namespace {

// SerializeBatchTime times serialization and LZ4 together. The exchanges whose
// bytes went out uncompressed give serialization alone; with that rate (or the
// base's), the compressed ones give LZ4.
struct SerializeSums {
  double ns = 0, tuple = 0, rows = 0;
  int exchanges = 0;
};

void derive_serialize(const ImportedScenario& imported, const CostProfile& base, DerivedCosts& out) {
  SerializeSums plain, compressed;
  for (const ImportedExchange& x : imported.measured) {
    const SenderCounters& c = x.counters;
    if (!c.serialize_ns || !c.uncompressed || !c.rows || !c.bytes_sent) continue;
    // The counters count a broadcast's every copy of a batch it serialized
    // once; a row is 4 B of offset as sent, 8 B of tuple pointer as counted
    // uncompressed (outbound-row-batch.h:119-125).
    const double copies = x.copies;
    const double tuple = (*c.uncompressed - 8 * *c.rows * copies) / copies;
    const double tuple_sent = (*c.bytes_sent - 4 * *c.rows * copies) / copies;
    if (tuple <= 0) continue;
    // Sent smaller than the batch: LZ4 ran and its output was kept.
    SerializeSums& sums = tuple_sent < tuple ? compressed : plain;
    sums.ns += *c.serialize_ns;
    sums.tuple += tuple;
    sums.rows += *c.rows;
    ++sums.exchanges;
  }
  const auto describe = [](const SerializeSums& s) {
    return fmt::format("SerializeBatchTime {:.3f} ms over {:.0f} tuple bytes (UncompressedRowBatchSize less 8 B of "
                       "tuple pointer a row) of {} exchange(s)",
                       s.ns * 1e-6, s.tuple, s.exchanges);
  };
  double serialize_ns_per_byte = base.serialize_bytes_per_s > 0 ? 1e9 / base.serialize_bytes_per_s : 0;
  if (plain.exchanges > 0) {
    const double left = plain.ns - plain.rows * base.serialize_row_ns;
    if (left > 0) {
      serialize_ns_per_byte = left / plain.tuple;
      out.costs.serialize_bytes_per_s = 1e9 / serialize_ns_per_byte;
      out.sources["serialize_bytes_per_s"] = "derived from the profile: " + describe(plain) +
                                             " sent uncompressed, less the base's serialize_row_ns a row";
      out.derived.push_back("serialize_bytes_per_s");
    } else {
      out.warnings.push_back("serialize_bytes_per_s: " + describe(plain) + " is no more than the base's per-row part: kept the base's");
    }
  }
  if (compressed.exchanges > 0) {
    const double serialize = compressed.rows * base.serialize_row_ns + compressed.tuple * serialize_ns_per_byte;
    const double left = compressed.ns - serialize;
    const std::string counted = fmt::format("{} sent compressed, less {:.3f} ms of serialization at {}", describe(compressed),
                                            serialize * 1e-6, plain.exchanges > 0 ? "the rate above" : "the base's rates");
    if (left > 0) {
      out.costs.lz4_compress_bytes_per_s = compressed.tuple / (left * 1e-9);
      out.sources["lz4_compress_bytes_per_s"] = "derived from the profile: " + counted;
      out.derived.push_back("lz4_compress_bytes_per_s");
    } else {
      out.warnings.push_back("lz4_compress_bytes_per_s: " + counted + " leaves nothing: kept the base's");
    }
  }
}

// DeserializeRowBatchTime times LZ4 and deserialization together, as
// SerializeBatchTime does: the exchanges whose batches arrived uncompressed
// give deserialization alone (less the base's per-row and per-batch parts), the
// compressed ones LZ4 on their compressed share.
void derive_deserialize(const ImportedScenario& imported, const CostProfile& base, DerivedCosts& out) {
  SerializeSums plain, compressed;
  double plain_batches = 0, compressed_batches = 0, compressed_share_tuple = 0;
  for (const ImportedExchange& x : imported.measured) {
    const SenderCounters& c = x.counters;
    const ReceiverCounters& r = x.receivers;
    if (!r.deserialize_ns || !r.batches || !c.uncompressed || !c.rows || !c.bytes_sent) continue;
    // Every copy is deserialized by its receiver.
    const double rows = *c.rows * x.copies;
    const double tuple = *c.uncompressed - 8 * rows;
    const double tuple_sent = *c.bytes_sent - 4 * rows;
    if (tuple <= 0) continue;
    const bool was_compressed = tuple_sent < tuple;
    SerializeSums& sums = was_compressed ? compressed : plain;
    sums.ns += *r.deserialize_ns;
    sums.tuple += tuple;
    sums.rows += rows;
    ++sums.exchanges;
    (was_compressed ? compressed_batches : plain_batches) += *r.batches;
    if (was_compressed) compressed_share_tuple += tuple * (1 - x.local_share);
  }
  const auto fixed_part = [&](double rows, double batches) {
    return rows * base.deserialize_row_ns + batches * base.deserialize_batch_us * 1e3;
  };
  const auto describe = [](const SerializeSums& s) {
    return fmt::format("DeserializeRowBatchTime {:.3f} ms over {:.0f} tuple bytes received of {} exchange(s)",
                       s.ns * 1e-6, s.tuple, s.exchanges);
  };
  double ns_per_byte = base.deserialize_bytes_per_s > 0 ? 1e9 / base.deserialize_bytes_per_s : 0;
  if (plain.exchanges > 0) {
    const double left = plain.ns - fixed_part(plain.rows, plain_batches);
    if (left > 0) {
      ns_per_byte = left / plain.tuple;
      out.costs.deserialize_bytes_per_s = 1e9 / ns_per_byte;
      out.sources["deserialize_bytes_per_s"] = "derived from the profile: " + describe(plain) +
                                               " that arrived uncompressed, less the base's deserialize_row_ns a row "
                                               "and deserialize_batch_us a batch";
      out.derived.push_back("deserialize_bytes_per_s");
    } else {
      out.warnings.push_back("deserialize_bytes_per_s: " + describe(plain) + " is no more than the base's per-row and "
                             "per-batch parts: kept the base's");
    }
  }
  if (compressed.exchanges > 0 && compressed_share_tuple > 0) {
    const double deserialize = fixed_part(compressed.rows, compressed_batches) + compressed.tuple * ns_per_byte;
    const double left = compressed.ns - deserialize;
    const std::string counted = fmt::format("{} that arrived compressed ({:.0f} B of it through LZ4, the rest from "
                                            "the senders' own daemons), less {:.3f} ms of deserialization at {}",
                                            describe(compressed), compressed_share_tuple, deserialize * 1e-6,
                                            plain.exchanges > 0 ? "the rate above" : "the base's rates");
    if (left > 0) {
      out.costs.lz4_decompress_bytes_per_s = compressed_share_tuple / (left * 1e-9);
      out.sources["lz4_decompress_bytes_per_s"] = "derived from the profile: " + counted;
      out.derived.push_back("lz4_decompress_bytes_per_s");
    } else {
      out.warnings.push_back("lz4_decompress_bytes_per_s: " + counted + " leaves nothing: kept the base's");
    }
  }
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
  out.costs.spread.clear();  // the base's spread was for its own figures
  derive_serialize(imported, base, out);
  derive_latency(imported, scenario, base, out);
  derive_deserialize(imported, base, out);
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
