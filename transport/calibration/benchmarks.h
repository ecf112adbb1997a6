// The benchmark exchanges behind `exsim calibrate`: each runs the real exchange
// with loopback hosts, delay lines and NIC pacing as in `exsim run`, most in
// this process (LocalCluster), the per-call ones through agent processes as
// `exsim run` makes calls, and reads the transport's own CPU clocks by stage;
// one repetition turns them into one value of every profile figure.
#ifndef EXSIM_TRANSPORT_CALIBRATION_BENCHMARKS_H_
#define EXSIM_TRANSPORT_CALIBRATION_BENCHMARKS_H_

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace exsim {
struct RunResult;
}  // namespace exsim

namespace exsim::transport {

struct CacheMeasure;

// One value of each figure, by profile key. `scale` sizes the exchanges (tests
// use a small one); `say` gets a line per benchmark; `agents_cpu_s` gets the CPU
// of the agent processes it started (not other processes on our CPUs);
// `cache_points` the cache exchanges' measurements, which a calibration's cache
// figures are fitted to once over its repetitions. Throws std::runtime_error
// when an exchange fails.
std::map<std::string, double> measure_figures(double scale, std::uint64_t seed,
                                              const std::function<void(const std::string&)>& say, double& agents_cpu_s,
                                              std::vector<CacheMeasure>& cache_points);

// CPU a stage spent on `rows` rows of `bytes` tuple bytes.
struct WorkSample {
  double ns = 0, rows = 0, bytes = 0;
  WorkSample operator+(const WorkSample& o) const { return {ns + o.ns, rows + o.rows, bytes + o.bytes}; }
};
// A stage's cost per row and per byte.
struct RowAndByteCost {
  double row_ns = 0, byte_ns = 0;
  double ns(double rows, double bytes) const { return rows * row_ns + bytes * byte_ns; }
};
// The per-row and per-byte costs that explain both samples, rows of two widths.
// Neither is negative: when noise would make one so, it is 0 and the other
// explains the total of both samples.
RowAndByteCost split_row_and_byte(const WorkSample& narrow, const WorkSample& wide);

// The serialize stage's CPU per call of one-row calls (one in flight, one
// channel): its per-call part, which the routing and copying are measured
// beyond. Throws std::runtime_error when the exchange fails.
double measure_serialize_per_call_ns(double scale, std::uint64_t seed);

// What one-row calls made as `exsim run` makes them, each host an agent
// process, cost a call: the CPU per call and side beyond deserializing its
// batch (on one core a call switches between processes, which costs more than
// between the threads of one process: one-row calls 7% more a call here), the
// receiver's deserialization per call, and the median wake-up of its blocked
// sender. Throws std::runtime_error when the run made no call.
struct AgentCalls {
  double call_ns = 0;
  double caller_ns = 0;  // of the sender's side, on the sender's own thread
  double deserialize_ns = 0;
  double wake_us = 0;
};
AgentCalls calls_of(const RunResult& run);

// The profile's per-call figures (rpc_cpu_us, rpc_cpu_busy_us,
// rpc_caller_cpu_us, sender_wake_us, deserialize_batch_us) from one-row calls
// one in flight (`alone`) and 64 in flight (`shared`).
std::map<std::string, double> per_call_figures(const AgentCalls& alone, const AgentCalls& shared);

// rpc_cpu_queued_us from a train's CPU per call and side beyond its bytes:
// never less than a call in a train on one connection (rpc_cpu_busy_us), never
// more than one alone that woke its receiver (rpc_cpu_us).
double bounded_queued_call_us(double train_call_us, double busy_us, double alone_us);

// Those calls as one scenario of `hosts` hosts (at least 2), from a sender on
// h0 to h1, the others idle: policy "alone" one in flight, "shared" 64. For a
// cluster's real path (calibrate --hosts), where no delay line runs.
std::string path_calls_scenario(int hosts, double scale, std::uint64_t seed);

// The RPC layer's CPU per byte on the wire and side, a batch in the cache and
// one that left it (cache_fit.h fit_transfer): two pairs of calibrate's cache
// exchanges at one fan-out, smaller and larger batches (3 channels, 16K and
// 256K; 48 channels, 16K and 512K), one sender on h0 of three hosts, each
// made by `run_exchange` (its scenario's text -> its result): through agent
// processes on this machine, or on a cluster's agents over its own paths.
// Throws std::runtime_error when an exchange fails or makes no call.
struct TransferFigures;
TransferFigures measure_transfer(double scale, std::uint64_t seed, double cache_bytes,
                                 const std::function<RunResult(const std::string&)>& run_exchange);

// How each figure is measured, by profile key.
const std::map<std::string, std::string>& figure_sources();

}  // namespace exsim::transport

#endif  // EXSIM_TRANSPORT_CALIBRATION_BENCHMARKS_H_
