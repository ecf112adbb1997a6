#include "transport/calibration/benchmarks.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <stdexcept>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "models/rules/cache_load.h"
#include "models/scenario/costs.h"
#include "models/scenario/scenario_loader.h"
#include "transport/agent/coordinator.h"
#include "transport/calibration/benchmark_exchange.h"
#include "transport/calibration/cache_benchmarks.h"
#include "transport/calibration/cache_fit.h"
#include "transport/net/thread_cpu.h"
#include "transport/testbed/busy_cores.h"
#include "transport/testbed/cpu_set.h"

namespace exsim::transport {
namespace {

// The RTT at which the per-call latency is measured: like a cluster's shorter distances.
constexpr double kDistantRttMs = 0.2;

// Memory taken from the kernel for the first time, per byte: an anonymous
// mapping written a byte a page, each write a page fault in which the kernel
// finds and zeroes the page (a fresh mapping each time, so that no page is
// reused). What a process pays as its buffers grow past what it held before.
double measure_fresh_memory_ns_per_byte() {
  constexpr std::size_t kBytes = std::size_t{64} << 20;
  const auto page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  void* mapping = mmap(nullptr, kBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mapping == MAP_FAILED) throw std::runtime_error("calibration: could not map 64 MiB to time its first writes");
  auto* bytes = static_cast<volatile char*>(mapping);
  const std::int64_t start = thread_cpu_ns();
  for (std::size_t i = 0; i < kBytes; i += page) bytes[i] = 1;
  const std::int64_t spent = thread_cpu_ns() - start;
  munmap(mapping, kBytes);
  return static_cast<double>(spent) / static_cast<double>(kBytes);
}

// `text`'s exchange made as `exsim run` makes it, one agent process a host;
// adds the agents' whole CPU to `agents_cpu_s`.
RunResult run_through_agents(const std::string& text, double& agents_cpu_s) {
  const Scenario scenario = parse_scenario(text, "(calibration benchmark)");
  RunOptions options;
  options.scenario_text = text;
  options.scenario_file = "(calibration benchmark)";
  options.delay_line = true;
  options.nic_cap = true;
  options.exsim_binary = "/proc/self/exe";  // calibrate runs in the exsim binary, which is also the agent
  options.timeout = std::chrono::seconds(120);
  RunResult r = run_on_agents(scenario, options).at(0);
  if (r.rpcs <= 0) throw std::runtime_error("calibration: an exchange through agents made no call");
  agents_cpu_s += r.agents_process_cpu_s();
  return r;
}

AgentCalls agents_calls(const std::string& text, double& agents_cpu_s) {
  return calls_of(run_through_agents(text, agents_cpu_s));
}

}  // namespace

TransferFigures measure_transfer(double scale, std::uint64_t seed, double cache_bytes,
                                 const std::function<RunResult(const std::string&)>& run_exchange) {
  const auto call = [&](std::size_t index, double& ns, double& bytes, double& evicted) {
    const CachePointRun run = prepare_cache_point(calibration_cache_points()[index], scale, seed);
    const RunResult r = run_exchange(run.scenario);
    if (r.rpcs <= 0) throw std::runtime_error("calibration: a transfer exchange made no call");
    const double calls = static_cast<double>(r.rpcs);
    ns = (r.cpu_s.rpc + r.cpu_s.call) * 1e9 / calls;
    bytes = r.bytes_wire / calls;
    evicted = evicted_share(run.load.working_set, cache_bytes);
  };
  const auto pair = [&](std::size_t small, std::size_t large) {
    TransferPair p;
    call(small, p.small_call_ns, p.small_bytes, p.small_evicted);
    call(large, p.large_call_ns, p.large_bytes, p.large_evicted);
    return p;
  };
  return fit_transfer({pair(0, 1), pair(6, 2)});
}

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

namespace {

constexpr const char* kOneRowCalls =
    R"({"buffer": {"flat": "1"}, "capacity": "fixed_len", "in_flight": 1, "compression": "none"})";

// The same with 64 in flight on each channel: the calls share the
// connection's system calls and wake-ups (at 1, 8 and 64 in flight a call cost
// 81, 26 and 8 us a side on the development machine).
constexpr const char* kSharedOneRowCalls =
    R"({"buffer": {"flat": "1"}, "capacity": "fixed_len", "in_flight": 64, "compression": "none"})";

BenchmarkShape one_row_calls_shape(double scale, std::uint64_t seed) {
  BenchmarkShape shape;
  shape.hosts = 2;
  shape.rows = std::max<std::int64_t>(1000, static_cast<std::int64_t>(4000 * scale));
  shape.policy = kOneRowCalls;
  shape.one_pair = true;
  shape.seed = seed;
  return shape;
}

}  // namespace

AgentCalls calls_of(const RunResult& r) {
  if (r.rpcs <= 0) throw std::runtime_error("calibration: an exchange through agents made no call");
  const double calls = static_cast<double>(r.rpcs);
  return {(r.cpu_s.rpc + r.cpu_s.call + r.cpu_s.serialize) * 1e9 / calls / 2, r.cpu_s.call * 1e9 / calls,
          r.cpu_s.deserialize * 1e9 / calls, r.sender_wake.p50_us};
}

std::map<std::string, double> per_call_figures(const AgentCalls& alone, const AgentCalls& shared) {
  return {{"rpc_cpu_us", alone.call_ns * 1e-3},
          {"rpc_cpu_busy_us", std::min(shared.call_ns, alone.call_ns) * 1e-3},
          {"rpc_caller_cpu_us", std::min(alone.caller_ns, alone.call_ns) * 1e-3},
          // The sender, blocked on its one call in flight, runs again after each response.
          {"sender_wake_us", alone.wake_us},
          // The receiver's deserialization of a one-row batch: its per-batch part.
          {"deserialize_batch_us", alone.deserialize_ns * 1e-3}};
}

double bounded_queued_call_us(double train_call_us, double busy_us, double alone_us) {
  return std::max(std::min(busy_us, alone_us), std::min(train_call_us, alone_us));
}

std::string path_calls_scenario(int hosts, double scale, std::uint64_t seed) {
  BenchmarkShape shape = one_row_calls_shape(scale, seed);
  shape.hosts = hosts;
  shape.rows = std::max<std::int64_t>(1000, static_cast<std::int64_t>(3000 * scale));
  // benchmark_scenario's one policy, and the same calls 64 in flight beside it.
  nlohmann::ordered_json scenario = nlohmann::ordered_json::parse(benchmark_scenario(shape));
  scenario["policies"] = {{"alone", nlohmann::ordered_json::parse(kOneRowCalls)},
                          {"shared", nlohmann::ordered_json::parse(kSharedOneRowCalls)}};
  return scenario.dump();
}

double measure_serialize_per_call_ns(double scale, std::uint64_t seed) {
  const Sample calls = run_benchmark(one_row_calls_shape(scale, seed));
  return calls.serialize_ns / std::max(1.0, calls.rpcs);
}

std::map<std::string, double> measure_figures(double scale, std::uint64_t seed,
                                              const std::function<void(const std::string&)>& say, double& agents_cpu_s,
                                              std::vector<CacheMeasure>& cache_points) {
  const auto rows = [&](double n) { return std::max<std::int64_t>(1000, static_cast<std::int64_t>(n * scale)); };
  const auto shape = [&](double n, const char* policy) {
    BenchmarkShape s;
    s.rows = rows(n);
    s.policy = policy;
    s.seed = seed;
    return s;
  };
  std::map<std::string, double> figures;
  say("per-RPC costs (one-row batches, one in flight)");
  const BenchmarkShape call_shape = one_row_calls_shape(scale, seed);
  const Sample calls = run_benchmark(call_shape);
  // The same calls at a distance the delay line must wait out: its timer's
  // lateness (tens of microseconds on a virtual machine, as the delay lines'
  // own measurement of the delay they achieved shows) is part
  // of every call's latency on this machine; at 1 us nothing waits.
  say(fmt::format("per-RPC latency (one-row batches, one in flight, {} ms RTT)", kDistantRttMs));
  BenchmarkShape distant_shape = call_shape;
  distant_shape.rows = rows(1500);
  distant_shape.rtt_ms = kDistantRttMs;
  const std::string distant_calls = benchmark_scenario(distant_shape);
  const Sample distant = run_benchmark(distant_calls, /*measure_rtt=*/true);
  // And with 64 in flight on each channel (kSharedOneRowCalls).
  BenchmarkShape busy_shape = distant_shape;
  busy_shape.rows = rows(8000);
  busy_shape.policy = kSharedOneRowCalls;
  const std::string busy_calls = benchmark_scenario(busy_shape);
  // The CPU per call the model charges, from the same calls made as the real
  // runs make them: through agent processes. With the CPUs held busy
  // (busy_cores.h): the model has a core start a woken thread at once, and a
  // call's CPU matters where its core has no time to spare. Free to halt
  // between one-row calls, a virtual machine's core made each cost 45-58 us
  // of CPU where a CPU-bound exchange's calls cost what 36 us predicts
  // (docs/validation.md, "Calls on a busy core"). The latency above is
  // measured with the core free, as the runs have it.
  say(fmt::format("per-RPC costs through agent processes (one and 64 in flight, {} ms RTT, the CPU held busy)",
                  kDistantRttMs));
  AgentCalls alone, shared;
  {
    const BusyCores held(allowed_cpus());
    if (!held.held()) say(fmt::format("warning: the CPU not held busy ({}): calls that find it halted cost more", held.why_not()));
    alone = agents_calls(distant_calls, agents_cpu_s);
    shared = agents_calls(busy_calls, agents_cpu_s);
  }
  say("deserialization (64K batches, uncompressed)");
  const Sample plain = run_benchmark(shape(1.5e6, R"({"buffer": {"flat": "64K"}, "in_flight": 2, "compression": "none"})"));
  // One sender, so that its few buffers stay in the cache (three senders'
  // batches of 216 B rows, 4.6 MiB, did not, and made the copying's cost a
  // byte 3 times the routing's).
  say("serialization of whole batches (random, uncompressed, one sender)");
  BenchmarkShape whole_shape = shape(1.5e6, R"({"in_flight": 1, "compression": "none"})");
  whole_shape.kind = "random";
  whole_shape.one_sender = true;
  const Sample whole = run_benchmark(whole_shape);
  // The same with rows five times as wide (216 B, like TPC-DS q72's shuffle):
  // with the narrow ones, per-row work apart from per-byte.
  say("serialization of whole batches of wide rows (random, uncompressed, one sender)");
  BenchmarkShape wide_shape = whole_shape;
  wide_shape.rows = rows(0.3e6);
  wide_shape.fixed_bytes = 200;
  const Sample wide_rows = run_benchmark(wide_shape);
  say("LZ4 (64K batches, compressed)");
  const Sample lz4 = run_benchmark(shape(1.5e6, R"({"buffer": {"flat": "64K"}, "in_flight": 2, "compression": "lz4"})"));

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
  figures = per_call_figures(alone, shared);
  figures["rpc_latency_us"] = std::max(0.0, distant.achieved_rtt_ms - kDistantRttMs) * 1e3;
  figures["wire_overhead_bytes"] = (calls.bytes_wire - calls.bytes_uncompressed) / calls_n;

  // Serialization proper, row by row, from the whole-batch senders of narrow
  // and of wide rows, less their per-call part: per row and per byte.
  const auto copy = [&](const Sample& s) {
    return WorkSample{s.serialize_ns - s.rpcs * serialize_per_call, s.rows, s.tuple_bytes};
  };
  const RowAndByteCost copying = split_row_and_byte(copy(whole), copy(wide_rows));
  figures["serialize_row_ns"] = copying.row_ns;
  figures["serialize_bytes_per_s"] = 1e9 / copying.byte_ns;
  // The hash sender's routing beyond copying, in the cache and beyond it, and
  // the RPC layer's bytes (cache_benchmarks.h).
  say("memory taken from the kernel (64 MiB, a write a page)");
  figures["fresh_memory_byte_ns"] = measure_fresh_memory_ns_per_byte();
  const SerializeParts serialize_parts{serialize_per_call, copying, figures["fresh_memory_byte_ns"]};
  for (const auto& [key, value] : measure_cache_figures(scale, seed, say, serialize_parts, cache_points)) {
    figures[key] = value;
  }
  say("the RPC layer's bytes, in the cache and beyond it, through agent processes");
  // Through agent processes as the suite's runs are: between processes a byte
  // costs more than between the threads of one (here 0.29-0.32 ns a side
  // against 0.24), and the suite's MT_DOP 4 and 8 rows, whose calls carry 64K
  // to 512K batches, spent that much more on their calls than the in-process
  // figure gave.
  const TransferFigures transfer = measure_transfer(
      scale, seed, figures["cache_bytes"], [&](const std::string& text) { return run_through_agents(text, agents_cpu_s); });
  figures["transfer_bytes_per_s"] = 1e9 / std::max(1e-6, transfer.ns_per_byte);
  figures["transfer_miss_byte_ns"] = transfer.miss_ns_per_byte;
  // A call's CPU beyond its bytes where the exchange makes its calls back to
  // back, the receiver's reactor busy with the calls before.
  figures["rpc_cpu_queued_us"] =
      bounded_queued_call_us(transfer.call_ns * 1e-3, figures["rpc_cpu_busy_us"], figures["rpc_cpu_us"]);
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
       "measured: the serialize stage of hash exchanges of one sender (3 to 81 channels, 16K to 2M batches) beyond "
       "its copying and per-call part, per row, fitted with the cache's figures: the routing of a row whose batch "
       "is in the cache"},
      {"append_bytes_per_s",
       "measured: the same exchanges' serialize stage beyond its per-row copying, its per-call part and the pages "
       "it faulted in, fitted with the cache's figures at rows of 40 B and of 216 B: per byte of a row appended to "
       "its channel's batch while the batch is in the core's cache"},
      {"core_miss_byte_ns",
       "measured: the same, per byte of a routed row, times the share of its sender's own buffers (full) a cache of "
       "the core's size (core_cache_bytes, from sysfs) evicts at random: 3 channels, 16K and 256K batches, 40 B and "
       "216 B rows, beside the others"},
      {"core_cache_bytes", "this machine's: the first CPU's level-2 cache, as /sys/devices/system/cpu lists it"},
      {"cache_bytes",
       "measured: the same exchanges' routing, the working set (the sender's buffers, full) at which the cost rises "
       "from the cached rate towards the memory-bound one, as a cache of this size evicting at random makes it"},
      {"prefetch_streams",
       "measured: the same, how the memory-bound routing cost rises with the channels' write streams (12, 48, 81 "
       "channels beyond the cache): the streams the prefetcher follows"},
      {"prefetched_miss_share",
       "measured: the same, the share of an evicted line's cost a stream the prefetcher follows still pays"},
      {"cache_miss_row_ns",
       "measured: the same, the routing cost beyond the cache per row, fully exposed, less its part per byte"},
      {"cache_miss_byte_ns",
       "measured: the same with rows of 216 B beside those of 40 B: the routing cost beyond the cache per byte of a "
       "row"},
      {"transfer_miss_byte_ns",
       "measured: RPC CPU (reactors and hand-offs) per call of the same exchanges made through agent processes, "
       "pairs at one fan-out and two batch sizes, per byte on the wire and side: the extra of a batch evicted from "
       "the cache"},
      {"decode_miss_byte_ns",
       "measured: thread CPU of the deserialize stage of the same exchanges per byte deserialized, against the "
       "share of the cache their senders' buffers evict (least squares): the extra of a batch evicted"},
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
       "process cost about 7% less a call); the CPU held busy by a lowest-priority thread, so that no call finds its "
       "core halted (transport/testbed/busy_cores.h)"},
      {"rpc_cpu_busy_us",
       "measured: the same with 64 calls in flight on each of two channels, which share the connection's system "
       "calls and wake-ups, through agent processes"},
      {"rpc_cpu_queued_us",
       "measured: RPC CPU (reactors and hand-offs) per call and side of the same exchanges as transfer_bytes_per_s, "
       "less their bytes at the fitted per-byte figures, the mean of the four: calls a CPU-bound exchange makes back "
       "to back, at least rpc_cpu_busy_us and at most rpc_cpu_us"},
      {"rpc_caller_cpu_us",
       "measured: of the same calls' CPU, the sender thread's beyond its stages (handing each call to the reactor, "
       "waiting for its window and waking), per call: the part on the query's own thread"},
      {"rpc_latency_us",
       "measured: the same calls at 0.2 ms RTT, their mean achieved RTT (the delay lines' stamps, there and back) "
       "beyond the nominal one: timer lateness and the loopback path"},
      {"sender_wake_us",
       "measured: the same calls through agent processes, one in flight, so that the sender waits for every "
       "response: the median time from the reactor thread freeing the channel to the sender thread running, the "
       "CPU held busy"},
      {"transfer_bytes_per_s",
       "measured: RPC CPU (reactors and hand-offs) per call of hash exchanges of one sender at 3 channels (16K and "
       "256K batches) and at 48 (16K and 512K), made through agent processes as the suite's runs are, the "
       "difference per byte on the wire and side (the per-call part the same in both): a batch in the cache"},
      {"wire_overhead_bytes", "measured: bytes on the wire per call beyond the rows' tuple data and offsets"},
      {"fresh_memory_byte_ns",
       "measured: thread CPU of writing a byte to each page of a fresh 64 MiB anonymous mapping (a page fault each, "
       "the kernel finding and zeroing the page), per byte mapped"},
      {"cores", "CPUs this process may use (sched_getaffinity); every emulated host shares them"},
      {"service_threads",
       "the real exchange's: each host reads and decodes its calls on its one reactor thread (transport/README.md)"},
  };
  return sources;
}

}  // namespace exsim::transport
