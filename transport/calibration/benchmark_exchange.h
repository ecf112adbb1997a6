// One benchmark exchange of calibrate: a scenario built from a few settings,
// run for real on loopback hosts in this process (LocalCluster, delay lines and
// NIC pacing as `exsim run` imposes them), and what its stages spent.
#ifndef EXSIM_TRANSPORT_CALIBRATION_BENCHMARK_EXCHANGE_H_
#define EXSIM_TRANSPORT_CALIBRATION_BENCHMARK_EXCHANGE_H_

#include <cstdint>
#include <string>

namespace exsim::transport {

// Rows of `fixed_bytes` plus 16 var-len bytes on average (uniform up to 48),
// LZ4 ratio 0.5, on `hosts` loopback hosts at mt_dop 1.
struct BenchmarkShape {
  std::int64_t rows = 0;
  std::string policy;  // the policy as JSON
  const char* kind = "hash";
  int hosts = 3;
  double rtt_ms = 0.001;
  int fixed_bytes = 24;
  // Receiver instances on each host (hash: a sender's channels are hosts x this).
  int receivers_per_host = 1;
  // One sender, on h0, instead of one a host.
  bool one_sender = false;
  // One sender on h0 whose rows all go to one receiver instance on h1 (two
  // instances there, so that the sender routes row by row, as hash
  // senders with more than one channel do; a Zipf skew of 30 leaves the second
  // a share of 1e-9), the other hosts idle: the per-call benchmarks.
  bool one_pair = false;
  std::uint64_t seed = 1;
};

// The scenario's JSON text.
std::string benchmark_scenario(const BenchmarkShape& shape);

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
  double sender_fault_bytes = 0;  // pages the sender threads faulted in, in bytes
  double achieved_rtt_ms = -1;  // if asked: host 0's calls to host 1, mean one-way delays there and back
};

// Runs the scenario `text` (its first policy, first exchange). `measure_rtt`:
// also host 0's calls to host 1's achieved RTT. Throws std::runtime_error when
// the exchange fails.
Sample run_benchmark(const std::string& text, bool measure_rtt = false);
inline Sample run_benchmark(const BenchmarkShape& shape) { return run_benchmark(benchmark_scenario(shape)); }

}  // namespace exsim::transport

#endif  // EXSIM_TRANSPORT_CALIBRATION_BENCHMARK_EXCHANGE_H_
