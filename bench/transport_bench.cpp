// The real exchange against reference tools, side by side in one run on this
// machine (docs/benchmarks.md): goodput of one channel against iperf3,
// the RPC round trip against sockperf ping-pong, and LZ4 on our own batches
// against `lz4 -b1` on the same bytes. Prints numbers; asserts nothing.
// The goodput also prints the CPU each side spends per byte and the ceiling
// that puts on goodput with every core busy.
// Usage: exsim_bench_transport [--only goodput|round-trip|lz4 | --transfer IN_FLIGHT]
// (--transfer: one transfer as a JSON line, for bench/peers/run-peers)
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <regex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "models/scenario/scenario_loader.h"
#include "transport/data/row_generator.h"
#include "transport/exchange/local_cluster.h"
#include "transport/net/thread_cpu.h"
#include "transport/wire/lz4_codec.h"

namespace {

using namespace exsim;
using namespace std::chrono_literals;

// Output of a shell command (empty when it fails).
std::string run(const std::string& command) {
  std::string out;
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (!pipe) return out;
  char buffer[4096];
  while (std::fgets(buffer, sizeof buffer, pipe)) out += buffer;
  pclose(pipe);
  return out;
}

bool have(const char* tool) { return !run(fmt::format("command -v {}", tool)).empty(); }

// CPU seconds this process has used, all threads, user and system.
double process_cpu_s() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  auto seconds = [](const timeval& t) { return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) * 1e-6; };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

// One sender on h0, its rows all to one receiver instance on h1. `row_by_row`:
// two instances there and a skew that leaves the second a 1e-9 share, so rows
// are routed one by one (a hash sender with one channel sends whole 1024-row
// input batches, docs/impala.md §1.7).
std::string one_channel(const std::string& policy, std::int64_t rows, int row_bytes, bool row_by_row = false) {
  return fmt::format(R"({{"name": "bench", "cluster": {{"hosts": 2, "rtt_ms": {{"same_group": 0.05}}}},
    "policies": {{"p": {}}},
    "workload": {{"queries": [{{"name": "q", "exchanges": [{{"id": "x", "kind": "hash", "rows": {},
      "row": {{"fixed_bytes": {}}}, "lz4_ratio": 1{},
      "senders": {{"hosts": ["h0"], "per_host": 1}}, "receivers": {{"hosts": ["h1"], "per_host": {}}}}}]}}]}}}})",
                     policy, rows, row_bytes, row_by_row ? R"(, "skew": 30)" : "", row_by_row ? 2 : 1);
}

// CPU seconds per GB of the work each batch needs beyond the kernel's socket
// copies, timed alone on one thread with nothing else running: the sender's
// row copy and encoding (checksum), and the receiver's decoding (payload copy
// and checksum), the same code the exchange runs, on 1 MiB batches in turn
// from a ring like the sender's. The least CPU per byte exsim could add to iperf3's.
double own_work_cpu_s_per_gb() {
  const RowShape shape{1024, VarLenDistribution{}};
  transport::RowGenerator generator(shape, 1.0, 3);
  std::vector<transport::RowBatch> inputs(8), outbound(3);
  for (auto& input : inputs) generator.fill(input, 1024);
  transport::Lz4Codec codec;
  transport::ByteBuffer scratch;
  transport::RowBatch received;
  std::string error;
  constexpr int kBatches = 512;
  const std::int64_t start = transport::thread_cpu_ns();
  for (int i = 0; i < kBatches; ++i) {
    transport::RowBatch& batch = outbound[i % outbound.size()];
    batch.copy_rows_from(inputs[i % inputs.size()]);
    transport::EncodedBatch encoded;
    transport::encode_batch(batch, /*compress=*/false, codec, scratch, encoded);
    if (!transport::decode_batch(encoded.fields, encoded.offsets, encoded.payload, received, error)) {
      throw std::runtime_error(error);
    }
  }
  const double bytes = static_cast<double>(kBatches) * static_cast<double>(inputs[0].tuple_bytes());
  return static_cast<double>(transport::thread_cpu_ns() - start) * 1e-9 / (bytes * 1e-9);
}

struct Goodput {
  std::string error;  // empty when the exchange completed
  double wall_s = 0;
  double bytes = 0;
  double cpu_s = 0;
  double bytes_per_s = 0;
  double cpu_per_gb = 0;  // CPU seconds of every thread of both hosts, kernel time included
  double cores_busy = 0;
};

// One channel of 1 MiB batches (1024 rows of 1 KiB), no compression, no delay line.
Goodput measure_goodput(int in_flight, bool print_stages, bool quiet = false) {
  const Scenario s = parse_scenario(
      one_channel(fmt::format(R"({{"buffer": {{"flat": "1M"}}, "in_flight": {}, "compression": "none", "receiver_buffer": "64M"}})",
                              in_flight),
                  1 << 20, 1024),
      "bench-goodput");
  transport::LocalCluster cluster(s, /*delay_line=*/false);
  transport::RunStats stats(2);
  const double cpu_before = process_cpu_s();
  const auto outcome = cluster.run_exchange(s.policies[0], 0, 0, 0, stats, 120s);
  const double cpu = process_cpu_s() - cpu_before;
  Goodput g;
  g.error = outcome.ok ? "" : outcome.error;
  g.wall_s = outcome.wall_s;
  g.bytes = static_cast<double>(stats.bytes_uncompressed);
  g.cpu_s = cpu;
  g.bytes_per_s = static_cast<double>(stats.bytes_uncompressed) / outcome.wall_s;
  g.cpu_per_gb = cpu / (static_cast<double>(stats.bytes_uncompressed) * 1e-9);
  g.cores_busy = cpu / outcome.wall_s;
  if (quiet) return g;
  fmt::print("  {:<18}{:8.0f} MB/s, {:.2f} cores busy, {:.2f} CPU-s per GB{}\n", fmt::format("exsim, {} in flight", in_flight),
             g.bytes_per_s / 1e6, g.cores_busy, g.cpu_per_gb, outcome.ok ? "" : ", FAILED: " + outcome.error);
  if (print_stages) {
    fmt::print("                    of which produce {:.2f} s, serialize {:.2f} s, deserialize {:.2f} s ({} RPCs, {:.2f} s)\n",
               static_cast<double>(stats.cpu_produce) * 1e-9, static_cast<double>(stats.cpu_serialize) * 1e-9,
               static_cast<double>(stats.cpu_deserialize) * 1e-9, stats.rpcs.load(), outcome.wall_s);
  }
  return g;
}

void goodput() {
  fmt::print("goodput, one channel, 1 MiB batches, no LZ4 (target at 2 in flight)\n");
  Goodput at_two;
  for (int in_flight : {1, 2, 4, 8}) {
    const Goodput g = measure_goodput(in_flight, in_flight == 2);
    if (in_flight == 2) at_two = g;
  }
  const double ours = at_two.bytes_per_s, ours_cpu_per_gb = at_two.cpu_per_gb;
  if (!have("iperf3")) {
    fmt::print("  iperf3            not installed (scripts/install-deps installs it)\n");
    return;
  }
  const std::string port = std::to_string(20000 + getpid() % 20000);
  std::thread server([&] { run("timeout 20 iperf3 -s -1 -p " + port + " -B 127.0.0.1"); });
  std::this_thread::sleep_for(500ms);
  const std::string json = run("iperf3 -c 127.0.0.1 -p " + port + " -t 3 -O 1 -l 1M -J");
  server.join();
  std::smatch m, client, remote;
  const std::regex received(R"("sum_received":\s*\{[^}]*"bits_per_second":\s*([0-9.e+]+))");
  if (!std::regex_search(json, m, received)) {
    fmt::print("  iperf3            no result: {}\n", json.substr(0, 200));
    return;
  }
  const double iperf = std::stod(m[1]) / 8;
  // iperf3's own CPU figures: each side's process time over the test, in percent of one core.
  double iperf_cpu_per_gb = 0;  // 0: not reported
  if (std::regex_search(json, client, std::regex(R"("host_total":\s*([0-9.e+]+))")) &&
      std::regex_search(json, remote, std::regex(R"("remote_total":\s*([0-9.e+]+))"))) {
    const double client_cores = std::stod(client[1]) / 100, server_cores = std::stod(remote[1]) / 100;
    iperf_cpu_per_gb = (client_cores + server_cores) / (iperf * 1e-9);
    fmt::print("  iperf3 -l 1M      {:8.0f} MB/s, {:.2f} cores busy (client {:.2f}, server {:.2f}), {:.2f} CPU-s per GB\n",
               iperf / 1e6, client_cores + server_cores, client_cores, server_cores, iperf_cpu_per_gb);
  } else {
    fmt::print("  iperf3 -l 1M      {:8.0f} MB/s\n", iperf / 1e6);
  }
  fmt::print("  ratio             {:8.2f}  at 2 in flight (target: at least 0.8)\n", ours / iperf);
  // What the machine allows whatever the scheduling: every core busy all the
  // time. First at the CPU per byte measured in the run; then at the least it
  // could be, iperf3's kernel work plus exsim's own per-byte work timed alone.
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  const double ceiling = cores / ours_cpu_per_gb * 1e9;
  fmt::print("  ceiling           {:8.0f} MB/s with all {} cores at exsim's CPU per byte: {:.2f} of iperf3\n",
             ceiling / 1e6, cores, ceiling / iperf);
  if (iperf_cpu_per_gb > 0) {
    const double own = own_work_cpu_s_per_gb();
    const double best = cores / (iperf_cpu_per_gb + own) * 1e9;
    fmt::print("  at best           {:8.0f} MB/s: iperf3's CPU per byte plus {:.2f} CPU-s per GB of row copy, payload copy\n"
               "                    and checksums timed alone: {:.2f} of iperf3\n",
               best / 1e6, own, best / iperf);
  }
}

void round_trip() {
  // One row of 8 bytes per batch: the cost of an RPC itself.
  const Scenario s = parse_scenario(
      one_channel(R"({"buffer": {"flat": "8"}, "in_flight": 1, "compression": "none"})", 20000, 8, /*row_by_row=*/true),
      "bench-rtt");
  transport::LocalCluster cluster(s, /*delay_line=*/false);
  transport::RunStats stats(2);
  const auto outcome = cluster.run_exchange(s.policies[0], 0, 0, 0, stats, 120s);
  fmt::print("\nRPC round trip, one row per batch, 1 in flight\n");
  fmt::print("  exsim             p50 {:6.1f} us, p99 {:6.1f} us, {:.1f} us per RPC over the run ({} RPCs{})\n",
             stats.calls.network_ns.quantile(0.5) * 1e-3, stats.calls.network_ns.quantile(0.99) * 1e-3,
             outcome.wall_s * 1e6 / static_cast<double>(stats.rpcs), stats.rpcs.load(),
             outcome.ok ? "" : ", FAILED: " + outcome.error);
  if (!have("sockperf")) {
    fmt::print("  sockperf          not installed\n");
    return;
  }
  const std::string port = std::to_string(30000 + getpid() % 20000);
  std::thread server([&] { run("timeout 8 sockperf server --tcp -i 127.0.0.1 -p " + port); });
  std::this_thread::sleep_for(500ms);
  const std::string out = run("sockperf ping-pong --tcp -i 127.0.0.1 -p " + port + " -t 3 -m 64 --full-rtt");
  server.join();
  std::smatch m;
  if (std::regex_search(out, m, std::regex(R"(percentile 50\.000 =\s*([0-9.]+))"))) {
    const double p50 = std::stod(m[1]);
    fmt::print("  sockperf 64 B     p50 {:6.1f} us (full round trip)\n", p50);
    fmt::print("  overhead per RPC  {:6.1f} us over sockperf\n", stats.calls.network_ns.quantile(0.5) * 1e-3 - p50);
  } else {
    fmt::print("  sockperf          no result: {}\n", out.substr(0, 200));
  }
}

void lz4_speed() {
  // 100 batches of 64 KiB of our generated rows at ratio 0.55, compressed one batch per call.
  const RowShape shape{21, VarLenDistribution::uniform(40, 120)};
  const auto calibration = transport::calibrate_random_share(shape, 0.55, 1);
  transport::RowGenerator generator(shape, calibration.random_share, 2);
  std::vector<transport::RowBatch> batches(100);
  std::ofstream file("/tmp/exsim-batches.bin", std::ios::binary);
  std::size_t total = 0;
  for (auto& b : batches) {
    generator.fill(b, 1070);  // about 64 KiB of tuple data
    file.write(b.data().data(), static_cast<std::streamsize>(b.tuple_bytes()));
    total += b.tuple_bytes();
  }
  file.close();
  transport::Lz4Codec codec;
  std::vector<char> out(transport::Lz4Codec::bound(1 << 20));
  std::size_t compressed = 0;
  int rounds = 0;
  const auto start = std::chrono::steady_clock::now();
  while (std::chrono::steady_clock::now() - start < 2s) {
    compressed = 0;
    for (const auto& b : batches) compressed += codec.compress(b.data().data(), b.tuple_bytes(), out.data(), out.size());
    ++rounds;
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const double ours = static_cast<double>(total) * rounds / seconds;
  fmt::print("\nLZ4 compression of our batches ({:.1f} MB in 64 KiB batches)\n", static_cast<double>(total) / 1e6);
  fmt::print("  exsim             {:8.0f} MB/s, ratio {:.3f}\n", ours / 1e6, static_cast<double>(compressed) / static_cast<double>(total));
  if (!have("lz4")) {
    fmt::print("  lz4               not installed\n");
    return;
  }
  const std::string out_text = run("lz4 -b1 -i2 -B4 /tmp/exsim-batches.bin");
  std::smatch m;
  if (std::regex_search(out_text, m, std::regex(R"(\(x?([0-9.]+)\),\s*([0-9.]+) MB/s)"))) {
    const double ratio = 1.0 / std::stod(m[1]);
    const double speed = std::stod(m[2]) * 1e6;
    fmt::print("  lz4 -b1 -B4       {:8.0f} MB/s, ratio {:.3f}\n", speed / 1e6, ratio);
    fmt::print("  ratio of speeds   {:8.2f}  (target: within 10%)\n", ours / speed);
  } else {
    fmt::print("  lz4               no result: {}\n", out_text.substr(0, 300));
  }
  std::remove("/tmp/exsim-batches.bin");
}

}  // namespace

// IMPALA-1638's transfer (1 GiB in 1 MiB batches) once, as one JSON line in the
// form of bench/peers' programs, for bench/peers/run-peers to set beside them.
int transfer(int in_flight) {
  const Goodput g = measure_goodput(in_flight, false, /*quiet=*/true);
  if (!g.error.empty()) {
    fmt::print(stderr, "exsim_bench_transport: the transfer failed: {}\n", g.error);
    return 1;
  }
  fmt::print(R"({{"tool": "exsim_bench_transport", "variant": "", "bytes": {:.0f}, "in_flight": {}, "wall_s": {:.6f}, )"
             R"("cpu_s": {:.6f}}})"
             "\n",
             g.bytes, in_flight, g.wall_s, g.cpu_s);
  return 0;
}

int main(int argc, char** argv) {
  // --only goodput|round-trip|lz4: one of the three, to profile it alone.
  const std::string only = argc == 3 && std::string(argv[1]) == "--only" ? argv[2] : "";
  const std::string in_flight = argc == 3 && std::string(argv[1]) == "--transfer" ? argv[2] : "";
  if (!in_flight.empty() && in_flight.find_first_not_of("0123456789") == std::string::npos) {
    return transfer(std::stoi(in_flight));
  }
  if (argc != 1 && only.empty()) {
    fmt::print(stderr, "usage: exsim_bench_transport [--only goodput|round-trip|lz4 | --transfer IN_FLIGHT]\n");
    return 2;
  }
  if (only.empty() || only == "goodput") goodput();
  if (only.empty() || only == "round-trip") round_trip();
  if (only.empty() || only == "lz4") lz4_speed();
  return 0;
}
