#include "transport/agent/protocol.h"

namespace exsim::transport {

nlohmann::json stats_to_json(const RunStats& s, int host) {
  const auto buckets_of = [](const LogHistogram& h) {
    nlohmann::json buckets = nlohmann::json::array();
    for (const auto& [index, count] : h.buckets()) buckets.push_back({index, count});
    return buckets;
  };
  return {{"host", host},
          {"rpcs", s.rpcs.load()},
          {"eos_rpcs", s.eos_rpcs.load()},
          {"deferred_rpcs", s.deferred_rpcs.load()},
          {"rows", s.rows_delivered.load()},
          {"bytes_wire", s.bytes_wire.load()},
          {"bytes_uncompressed", s.bytes_uncompressed.load()},
          {"compressed_in", s.payload_compressed_in.load()},
          {"compressed_out", s.payload_compressed_out.load()},
          {"blocked_ns", s.blocked_ns.load()},
          {"peak_in_flight", s.peak_in_flight.load()},
          {"senders", s.senders.load()},
          {"over_estimate", s.over_estimate.load()},
          {"max_over_bytes", s.max_over_bytes.load()},
          {"instance_peak", s.max_instance_peak.load()},
          {"cpu_ns",
           {{"produce", s.cpu_produce.load()},
            {"serialize", s.cpu_serialize.load()},
            {"compress", s.cpu_compress.load()},
            {"decompress", s.cpu_decompress.load()},
            {"deserialize", s.cpu_deserialize.load()},
            {"consume", s.cpu_consume.load()},
            {"call", s.cpu_call.load()},
            {"handoff", s.cpu_handoff.load()}}},
          {"time_ns",
           {{"sender_life", s.sender_life_ns.load()},
            {"produce", s.produce_wall_ns.load()},
            {"wake", s.wake_sum_ns.load()},
            {"network", s.network_sum_ns.load()},
            {"receiver", s.receiver_sum_ns.load()},
            {"held", s.held_ns.load()},
            {"drain", s.max_drain_ns.load()}}},
          {"network_ns", buckets_of(s.calls.network_ns)},
          {"receiver_ns", buckets_of(s.calls.receiver_ns)},
          {"wake_ns", buckets_of(s.calls.wake_ns)}};
}

void ExchangeTotals::add(const nlohmann::json& s) {
  rpcs += s.at("rpcs").get<std::int64_t>();
  eos_rpcs += s.at("eos_rpcs").get<std::int64_t>();
  deferred_rpcs += s.at("deferred_rpcs").get<std::int64_t>();
  rows += s.at("rows").get<std::int64_t>();
  bytes_wire += s.at("bytes_wire").get<double>();
  bytes_uncompressed += s.at("bytes_uncompressed").get<double>();
  compressed_in += s.at("compressed_in").get<double>();
  compressed_out += s.at("compressed_out").get<double>();
  blocked_s += s.at("blocked_ns").get<double>() * 1e-9;
  peak_in_flight = std::max(peak_in_flight, s.at("peak_in_flight").get<int>());
  instance_peak = std::max(instance_peak, s.at("instance_peak").get<std::int64_t>());
  planner.senders += s.at("senders").get<std::int64_t>();
  planner.over_estimate += s.at("over_estimate").get<std::int64_t>();
  planner.max_over_bytes = std::max(planner.max_over_bytes, s.at("max_over_bytes").get<std::int64_t>());
  const auto& c = s.at("cpu_ns");
  cpu.produce += c.at("produce").get<double>() * 1e-9;
  cpu.serialize += c.at("serialize").get<double>() * 1e-9;
  cpu.compress += c.at("compress").get<double>() * 1e-9;
  cpu.decompress += c.at("decompress").get<double>() * 1e-9;
  cpu.deserialize += c.at("deserialize").get<double>() * 1e-9;
  cpu.consume += c.at("consume").get<double>() * 1e-9;
  cpu.call += c.at("call").get<double>() * 1e-9;
  cpu.rpc += c.at("handoff").get<double>() * 1e-9;  // with the reactors' CPU, which the agents report apart
  const auto& t = s.at("time_ns");
  time.life_s += t.at("sender_life").get<double>() * 1e-9;
  time.produce_s += t.at("produce").get<double>() * 1e-9;
  time.wake_s += t.at("wake").get<double>() * 1e-9;
  time.network_s += t.at("network").get<double>() * 1e-9;
  time.receiver_s += t.at("receiver").get<double>() * 1e-9;
  time.held_s += t.at("held").get<double>() * 1e-9;
  time.drain_s = std::max(time.drain_s, t.at("drain").get<double>() * 1e-9);
  const auto add_buckets = [&](const char* key, LogHistogram& into) {
    for (const auto& b : s.at(key)) into.add_bucket(b.at(0).get<int>(), b.at(1).get<std::int64_t>());
  };
  add_buckets("network_ns", calls.network_ns);
  add_buckets("receiver_ns", calls.receiver_ns);
  add_buckets("wake_ns", calls.wake_ns);
}

}  // namespace exsim::transport
