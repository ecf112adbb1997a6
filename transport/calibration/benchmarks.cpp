#include "transport/calibration/benchmarks.h"

#include <algorithm>
#include <stdexcept>
#include <vector>

#include <fmt/format.h>

#include "models/scenario/costs.h"
#include "models/scenario/scenario_loader.h"
#include "transport/agent/coordinator.h"
#include "transport/exchange/local_cluster.h"
#include "transport/exchange/run_stats.h"

namespace exsim::transport {
namespace {

// One exchange of `rows` rows of 24 + ~16 bytes, under `policy` (JSON), on
// loopback hosts. `one_pair`: two hosts, one sender on h0 whose rows all go to
// one receiver instance on h1 (two instances there, so that the sender routes
// row by row, as hash senders with more than one channel do, section 1.7; a
// Zipf skew of 30 leaves the second a share of 1e-9). Otherwise three hosts at
// mt_dop 1, each sending to all three: on one machine the hosts' threads
// contend for its cores and caches, which raises the CPU per byte, and
// three-way contention is what a cluster's emulated hosts meet more than two.
// `receivers_per_host` (three hosts): receiver instances on each, so that each
// sender has three times as many channels.
// `fixed_bytes`: each row's fixed part (24 here, 200 for the wide rows that
// tell per-row serialization from per-byte).
std::string benchmark_scenario(std::int64_t rows, const std::string& policy, bool one_pair, std::uint64_t seed,
                               const char* kind = "hash", double rtt_ms = 0.001, int receivers_per_host = 1,
                               int fixed_bytes = 24) {
  const std::string placement =
      one_pair ? R"(, "skew": 30, "senders": {"hosts": ["h0"], "per_host": 1}, "receivers": {"hosts": ["h1"], "per_host": 2})"
      : receivers_per_host > 1
          ? fmt::format(R"(, "receivers": {{"hosts": ["h0", "h1", "h2"], "per_host": {}}})", receivers_per_host)
          : "";
  return fmt::format(
      R"({{"name": "calibrate", "seed": {}, "cluster": {{"hosts": {}, "rtt_ms": {{"same_group": {}}}}}, "mt_dop": 1,
          "policies": {{"p": {}}},
          "workload": {{"queries": [{{"name": "q", "exchanges": [
            {{"id": "x", "kind": "{}", "rows": {},
              "row": {{"fixed_bytes": {}, "varlen_bytes": {{"dist": "uniform", "mean": 16, "max": 48}}}},
              "lz4_ratio": 0.5{}}}]}}]}}}})",
      seed, one_pair ? 2 : 3, rtt_ms, policy, kind, rows, fixed_bytes, placement);
}

// The RTT at which the per-call latency is measured: like a cluster's shorter distances.
constexpr double kDistantRttMs = 0.2;

// What one benchmark exchange measured.
struct Sample {
  double wall_s = 0;
  double rpcs = 0, eos_rpcs = 0;
  double rows = 0;
  double tuple_bytes = 0;       // uncompressed tuple data sent
  double bytes_wire = 0;
  double bytes_uncompressed = 0;  // tuple data plus offsets
  double compressed_in = 0;       // tuple bytes given to LZ4
  double serialize_ns = 0, compress_ns = 0, decompress_ns = 0, deserialize_ns = 0, rpc_ns = 0;
  double achieved_rtt_ms = -1;  // if asked: host 0's calls to host 1, mean one-way delays there and back
};

Sample run_benchmark(const std::string& text, bool measure_rtt = false) {
  const Scenario scenario = parse_scenario(text, "(calibration benchmark)");
  LocalCluster cluster(scenario, /*delay_line=*/true, /*nic_cap=*/true);
  RunStats stats(static_cast<int>(scenario.cluster.hosts.size()));
  std::int64_t reactor_before = 0;
  const int hosts = static_cast<int>(scenario.cluster.hosts.size());
  for (int h = 0; h < hosts; ++h) reactor_before += cluster.host(h).reactor_cpu_ns();
  const ExchangeOutcome outcome = cluster.run_exchange(scenario.policies.front(), 0, 0, 0, stats, std::chrono::seconds(120));
  if (!outcome.ok) throw std::runtime_error(fmt::format("calibration exchange failed: {}", outcome.error));
  std::int64_t reactor_after = 0;
  for (int h = 0; h < hosts; ++h) reactor_after += cluster.host(h).reactor_cpu_ns();
  Sample s;
  s.wall_s = outcome.wall_s;
  s.rpcs = static_cast<double>(stats.rpcs.load());
  s.eos_rpcs = static_cast<double>(stats.eos_rpcs.load());
  s.rows = static_cast<double>(stats.rows_delivered.load());
  s.bytes_wire = static_cast<double>(stats.bytes_wire.load());
  s.bytes_uncompressed = static_cast<double>(stats.bytes_uncompressed.load());
  s.tuple_bytes = s.bytes_uncompressed - 4 * s.rows;
  s.compressed_in = static_cast<double>(stats.payload_compressed_in.load());
  s.serialize_ns = static_cast<double>(stats.cpu_serialize.load());
  s.compress_ns = static_cast<double>(stats.cpu_compress.load());
  s.decompress_ns = static_cast<double>(stats.cpu_decompress.load());
  s.deserialize_ns = static_cast<double>(stats.cpu_deserialize.load());
  // RPC work: the reactors' CPU beyond decoding, and the sender and consumer
  // threads' beyond their stages (waiting, handing calls over, waking up).
  s.rpc_ns = static_cast<double>(reactor_after - reactor_before - stats.cpu_decode_on_reactor.load() +
                                 stats.cpu_handoff.load() + stats.cpu_call.load());
  if (measure_rtt) {
    // Host 0's calls as host 1 received them, and their responses as host 0 did.
    const auto delay = [](const std::vector<double>& by_host, std::size_t h) { return h < by_host.size() ? by_host[h] : -1; };
    const double call_ms = delay(cluster.host(1).achieved_delays_ms(Host::Statistic::kMean).calls_from, 0);
    const double response_ms = delay(cluster.host(0).achieved_delays_ms(Host::Statistic::kMean).responses_from, 1);
    if (call_ms >= 0 && response_ms >= 0) s.achieved_rtt_ms = call_ms + response_ms;
  }
  return s;
}

// What `text`'s exchange measured made as `exsim run` makes it, each host an
// agent process: the CPU per call and side beyond deserializing its batch (on
// one core a call switches between processes, which costs more than between
// the threads of one process: one-row calls 7% more a call here), the
// receiver's deserialization per call, and the median wake-up of its blocked sender.
struct AgentCalls {
  double call_ns = 0;
  double caller_ns = 0;  // of the sender's side, on the sender's own thread
  double deserialize_ns = 0;
  double wake_us = 0;
};

// Adds the agents' whole CPU to `agents_cpu_s`.
AgentCalls agents_calls(const std::string& text, double& agents_cpu_s) {
  const Scenario scenario = parse_scenario(text, "(calibration benchmark)");
  RunOptions options;
  options.scenario_text = text;
  options.scenario_file = "(calibration benchmark)";
  options.delay_line = true;
  options.nic_cap = true;
  options.exsim_binary = "/proc/self/exe";  // calibrate runs in the exsim binary, which is also the agent
  options.timeout = std::chrono::seconds(120);
  const RunResult r = run_on_agents(scenario, options).at(0);
  if (r.rpcs <= 0) throw std::runtime_error("calibration: the per-call exchange through agents made no call");
  agents_cpu_s += r.agents_process_cpu_s();
  const double calls = static_cast<double>(r.rpcs);
  return {(r.cpu_s.rpc + r.cpu_s.call + r.cpu_s.serialize) * 1e9 / calls / 2, r.cpu_s.call * 1e9 / calls,
          r.cpu_s.deserialize * 1e9 / calls, r.sender_wake.p50_us};
}

}  // namespace

RowAndByteCost split_row_and_byte(const WorkSample& narrow, const WorkSample& wide) {
  // ns = rows * row_ns + bytes * byte_ns for both: two equations, two unknowns.
  const double det = narrow.rows * wide.bytes - wide.rows * narrow.bytes;
  RowAndByteCost cost;
  if (det != 0) {
    cost.row_ns = (narrow.ns * wide.bytes - wide.ns * narrow.bytes) / det;
    cost.byte_ns = (narrow.rows * wide.ns - wide.rows * narrow.ns) / det;
  }
  const double rows = narrow.rows + wide.rows, bytes = narrow.bytes + wide.bytes, ns = narrow.ns + wide.ns;
  if (det == 0 || cost.row_ns < 0) {
    // No per-row part to be seen (or noise around a small one): the bytes pay for all.
    cost = {0, bytes > 0 ? ns / bytes : 0};
  } else if (cost.byte_ns <= 0) {
    // No per-byte part: the rows pay for all (a byte rate of 0 is then out of bounds).
    cost = {rows > 0 ? ns / rows : 0, 0};
  }
  return cost;
}

std::map<std::string, double> measure_figures(double scale, std::uint64_t seed,
                                              const std::function<void(const std::string&)>& say, double& agents_cpu_s) {
  const auto rows = [&](double n) { return std::max<std::int64_t>(1000, static_cast<std::int64_t>(n * scale)); };
  std::map<std::string, double> figures;
  say("per-RPC costs (one-row batches, one in flight)");
  const char* one_row_calls = R"({"buffer": {"flat": "1"}, "capacity": "fixed_len", "in_flight": 1, "compression": "none"})";
  const Sample calls = run_benchmark(benchmark_scenario(rows(4000), one_row_calls, /*one_pair=*/true, seed));
  // The same calls at a distance the delay line must wait out: its timer's
  // lateness (tens of microseconds, section 7 of the transport notes) is part
  // of every call's latency on this machine; at 1 us nothing waits.
  say(fmt::format("per-RPC latency (one-row batches, one in flight, {} ms RTT)", kDistantRttMs));
  const std::string distant_calls =
      benchmark_scenario(rows(1500), one_row_calls, /*one_pair=*/true, seed, "hash", kDistantRttMs);
  const Sample distant = run_benchmark(distant_calls, /*measure_rtt=*/true);
  // And with 64 in flight on each channel: the calls share the connection's
  // system calls and wake-ups (at 1, 8 and 64 in flight a call cost 81, 26 and
  // 8 us a side on the development machine).
  const char* many_calls = R"({"buffer": {"flat": "1"}, "capacity": "fixed_len", "in_flight": 64, "compression": "none"})";
  const std::string busy_calls = benchmark_scenario(rows(8000), many_calls, /*one_pair=*/true, seed, "hash", kDistantRttMs);
  // The CPU per call the model charges, from the same calls made as the real
  // runs make them: through agent processes.
  say(fmt::format("per-RPC costs through agent processes (one and 64 in flight, {} ms RTT)", kDistantRttMs));
  const AgentCalls alone = agents_calls(distant_calls, agents_cpu_s);
  const double call_alone_ns = alone.call_ns;
  const double call_shared_ns = agents_calls(busy_calls, agents_cpu_s).call_ns;
  say("serialization (64K batches, uncompressed)");
  const Sample plain = run_benchmark(
      benchmark_scenario(rows(1.5e6), R"({"buffer": {"flat": "64K"}, "in_flight": 2, "compression": "none"})",
                         /*one_pair=*/false, seed));
  // Routing among four times the channels: the hash sender's extra per row
  // grows with its fan-out (more channels' buffers, more cache misses), and
  // with the bytes each channel's batch spans (measured on the exchange at
  // MT_DOP 4 here: 1.9, 2.3, 3.7, 6.2 and 11.1 ns a row and channel more with
  // 16K, 32K, 64K, 128K and 256K batches, a line in the batch's bytes). So at
  // two sizes: 16K, and 128K.
  constexpr int kWideReceiversPerHost = 4;
  say("routing among 12 channels (16K and 128K batches, uncompressed)");
  const auto wide_at = [&](const char* policy) {
    return run_benchmark(benchmark_scenario(rows(1.5e6), policy, /*one_pair=*/false, seed, "hash", 0.001,
                                            kWideReceiversPerHost));
  };
  const Sample wide_small = wide_at(R"({"buffer": {"flat": "16K"}, "in_flight": 2, "compression": "none"})");
  const Sample wide_large = wide_at(R"({"buffer": {"flat": "128K"}, "in_flight": 2, "compression": "none"})");
  say("serialization of whole batches (random, uncompressed)");
  const Sample whole = run_benchmark(benchmark_scenario(rows(1.5e6), R"({"in_flight": 2, "compression": "none"})",
                                                        /*one_pair=*/false, seed, "random"));
  // The same with rows five times as wide (216 B, like TPC-DS q72's shuffle):
  // with the narrow ones, per-row work apart from per-byte.
  constexpr int kWideRowFixedBytes = 200;
  say("serialization of whole batches of wide rows (random, uncompressed)");
  const Sample wide_rows =
      run_benchmark(benchmark_scenario(rows(0.3e6), R"({"in_flight": 2, "compression": "none"})", /*one_pair=*/false,
                                       seed, "random", 0.001, 1, kWideRowFixedBytes));
  say("LZ4 (64K batches, compressed)");
  const Sample lz4 = run_benchmark(
      benchmark_scenario(rows(1.5e6), R"({"buffer": {"flat": "64K"}, "in_flight": 2, "compression": "lz4"})",
                         /*one_pair=*/false, seed));
  // Bytes through the RPC stack: 64K batches between the two hosts of the
  // one-row calls, one in flight, so that their per-call part is the one-row
  // calls' and what is left is the bytes'. (1 MiB batches cost five times as
  // much per byte, in writes and reads cut short by the socket buffers; taken
  // out of a three-host exchange of 64K batches, the per-call part was most of
  // the CPU and the bytes' remainder ranged over a factor of ten.)
  say("transfer (64K batches between two hosts, uncompressed)");
  const std::string one_row_text = benchmark_scenario(rows(4000), one_row_calls, /*one_pair=*/true, seed);
  const Sample calls_before = run_benchmark(one_row_text);
  const Sample bulk = run_benchmark(benchmark_scenario(
      rows(1.5e6), R"({"buffer": {"flat": "64K"}, "in_flight": 1, "compression": "none"})", /*one_pair=*/true, seed));
  const Sample calls_after = run_benchmark(one_row_text);

  // Per call, beyond its bytes: what each stage spent on one-row batches.
  const double calls_n = calls.rpcs + calls.eos_rpcs;
  const double serialize_per_call = calls.serialize_ns / calls.rpcs;
  const double deserialize_per_call = calls.deserialize_ns / calls.rpcs;
  // CPU per call and side, beyond the bytes (through agents, above): at a
  // distance, as every call of a scenario with an RTT waits on the delay lines
  // (their timers' wake-ups are CPU too); alone on its connection, and among many.
  // Latency beyond the RTT: what the emulated network adds to the nominal
  // distance, there and back (the delay line's timer lateness, the kernel's
  // loopback path), as its own timestamps measured it.
  if (distant.achieved_rtt_ms < 0) throw std::runtime_error("calibration: the per-call benchmark measured no round trip");
  figures["rpc_cpu_us"] = call_alone_ns * 1e-3;
  figures["rpc_cpu_busy_us"] = std::min(call_shared_ns, call_alone_ns) * 1e-3;
  figures["rpc_caller_cpu_us"] = std::min(alone.caller_ns, call_alone_ns) * 1e-3;
  figures["rpc_latency_us"] = std::max(0.0, distant.achieved_rtt_ms - kDistantRttMs) * 1e3;
  // The sender, blocked on its one call in flight, runs again after each response.
  figures["sender_wake_us"] = alone.wake_us;
  // The receiver's deserialization of a one-row batch: its per-batch part.
  figures["deserialize_batch_us"] = alone.deserialize_ns * 1e-3;
  figures["wire_overhead_bytes"] = (calls.bytes_wire - calls.bytes_uncompressed) / calls_n;

  // The RPC work beyond the per-call part moves the bytes (socket copies). The
  // per-call part is three quarters of a 64K call's RPC CPU, so a few percent off
  // in it moves the bytes' remainder by four times as much: it is the median of
  // the one-row calls before everything and right before and after the bulk ones
  // (one run alone left the figure ranging 3.8-6.3 GB/s over a calibration).
  const auto per_call = [](const Sample& s) { return s.rpc_ns / s.rpcs; };
  const double rpc_per_call = spread_of({per_call(calls), per_call(calls_before), per_call(calls_after)}).median;
  const double transfer_ns = bulk.rpc_ns - bulk.rpcs * rpc_per_call;
  figures["transfer_bytes_per_s"] = bulk.bytes_wire / std::max(1.0, transfer_ns / 2) * 1e9;
  // Serialization proper, row by row, from the whole-batch senders of narrow
  // and of wide rows, less their per-call part: per row and per byte. The hash
  // sender's extra per row is routing.
  const auto copy = [&](const Sample& s) {
    return WorkSample{s.serialize_ns - s.rpcs * serialize_per_call, s.rows, s.tuple_bytes};
  };
  const RowAndByteCost copying = split_row_and_byte(copy(whole), copy(wide_rows));
  figures["serialize_row_ns"] = copying.row_ns;
  figures["serialize_bytes_per_s"] = 1e9 / copying.byte_ns;
  // Routing per row among 3 channels (kPartitionChannels) and among 12, beyond
  // copying and the per-call part: the first as the rate, the slope to the
  // second per channel. (Both measured as they are used: taken as a line's value
  // at no channel, the rate varied twofold between calibrations.) The slope at
  // the two batch sizes gives its part per MiB of a channel's batch, and the
  // rest at none.
  const auto route_ns_per_row = [&](const Sample& s) {
    return (s.serialize_ns - s.rpcs * serialize_per_call - copying.ns(s.rows, s.tuple_bytes)) / s.rows;
  };
  const double wide_channels = static_cast<double>(kPartitionChannels * kWideReceiversPerHost);
  const auto per_channel_ns = [&](const Sample& wide) {
    return (route_ns_per_row(wide) - route_ns_per_row(plain)) / (wide_channels - kPartitionChannels);
  };
  const auto batch_mib = [](const Sample& s) { return s.tuple_bytes / std::max(1.0, s.rpcs) / (1024.0 * 1024.0); };
  const double per_mib = std::max(0.0, (per_channel_ns(wide_large) - per_channel_ns(wide_small)) /
                                           (batch_mib(wide_large) - batch_mib(wide_small)));
  figures["partition_rows_per_s"] = 1e9 / std::max(1e-3, route_ns_per_row(plain));
  figures["partition_channel_ns"] = std::max(0.0, per_channel_ns(wide_small) - per_mib * batch_mib(wide_small));
  figures["partition_channel_mib_ns"] = per_mib;
  // Deserialization, per row and per byte: of narrow rows from both 64K
  // exchanges, uncompressed and compressed (its LZ4 part measured apart), and
  // the whole batches (three times the bytes of one exchange, whose own figure
  // varied by a third between repetitions); of wide rows from their whole batches.
  const auto decode = [&](const Sample& s) {
    return WorkSample{s.deserialize_ns - s.rpcs * deserialize_per_call, s.rows, s.tuple_bytes};
  };
  const RowAndByteCost decoding = split_row_and_byte(decode(plain) + decode(lz4) + decode(whole), decode(wide_rows));
  figures["deserialize_row_ns"] = decoding.row_ns;
  figures["deserialize_bytes_per_s"] = 1e9 / decoding.byte_ns;
  figures["lz4_compress_bytes_per_s"] = (lz4.compressed_in / std::max(1.0, lz4.compress_ns) * 1e9);
  figures["lz4_decompress_bytes_per_s"] = (lz4.compressed_in / std::max(1.0, lz4.decompress_ns) * 1e9);
  return figures;
}

const std::map<std::string, std::string>& figure_sources() {
  static const std::map<std::string, std::string> sources = {
      {"serialize_bytes_per_s",
       "measured: thread CPU of the serialize stage of a random exchange among three loopback hosts (whole "
       "1024-row batches deep-copied row by row) of 40 B and of 216 B rows, less the per-call part, per tuple byte "
       "beyond the per-row part"},
      {"serialize_row_ns",
       "measured: the same with rows of 216 B beside those of 40 B, per row (two widths, two unknowns: per row and "
       "per byte)"},
      {"deserialize_row_ns",
       "measured: thread CPU of the deserialize stage of the random exchanges of 216 B and 40 B rows and the hash "
       "exchanges of 40 B, less the per-call part, per row"},
      {"partition_rows_per_s",
       "measured: the serialize stage of a hash exchange among three hosts (3 channels a sender, 64K batches) beyond "
       "its copying and per-call part, per row"},
      {"partition_channel_ns",
       "measured: the same among 12 channels a sender (16K and 128K batches), per row and per channel more, less its "
       "part per MiB of the channel's batch"},
      {"partition_channel_mib_ns",
       "measured: the same, how much more per row and channel the 128K batches cost than the 16K ones, per MiB of "
       "a batch's tuple data"},
      {"deserialize_batch_us",
       "measured: thread CPU of the deserialize stage per call of the one-row calls through agent processes (the "
       "receiver's part of a call beyond its rows and bytes)"},
      {"deserialize_bytes_per_s",
       "measured: thread CPU of the deserialize stage of the hash exchanges, uncompressed and compressed (less LZ4), "
       "and of the random exchanges, less the per-call part, per tuple byte beyond the per-row part"},
      {"lz4_compress_bytes_per_s", "measured: LZ4 compression CPU of the same exchange compressed, per uncompressed byte"},
      {"lz4_decompress_bytes_per_s",
       "measured: LZ4 decompression CPU of the compressed exchange's receivers, per uncompressed byte"},
      {"rpc_cpu_us",
       "measured: CPU of every stage but deserialization (deserialize_batch_us), both reactors and the threads' "
       "hand-offs per call of one-row batches, one in flight at 0.2 ms RTT (the delay lines' timers wake the reactors "
       "as a distance does), halved per side; the two hosts agent processes, as exsim run makes calls (threads of one "
       "process cost about 7% less a call)"},
      {"rpc_cpu_busy_us",
       "measured: the same with 64 calls in flight on each of two channels, which share the connection's system "
       "calls and wake-ups, through agent processes"},
      {"rpc_caller_cpu_us",
       "measured: of the same calls' CPU, the sender thread's beyond its stages (handing each call to the reactor, "
       "waiting for its window and waking), per call: the part on the query's own thread"},
      {"rpc_latency_us",
       "measured: the same calls at 0.2 ms RTT, their mean achieved RTT (the delay lines' stamps, there and back) "
       "beyond the nominal one: timer lateness and the loopback path"},
      {"sender_wake_us",
       "measured: the same calls through agent processes, one in flight, so that the sender waits for every "
       "response: the median time from the reactor thread freeing the channel to the sender thread running"},
      {"transfer_bytes_per_s",
       "measured: RPC CPU (reactors and hand-offs) of 64K uncompressed batches between two hosts, one in flight, "
       "beyond the one-row calls' per-call part, per byte on the wire, per side"},
      {"wire_overhead_bytes", "measured: bytes on the wire per call beyond the rows' tuple data and offsets"},
      {"cores", "CPUs this process may use (sched_getaffinity); every emulated host shares them"},
  };
  return sources;
}

}  // namespace exsim::transport
