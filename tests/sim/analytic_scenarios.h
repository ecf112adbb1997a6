// Scenarios small enough to follow by hand, for the closed-form tests of the
// model: costs in round numbers (serialize and append 1 ns/B, deserialize 0.5 ns/B, 10 us
// CPU and 20 us software latency per RPC, 100 B framing, NICs of 1 B/ns), and
// one sender with one channel, 0.5 ms from its receiver.
#ifndef EXSIM_TESTS_SIM_ANALYTIC_SCENARIOS_H_
#define EXSIM_TESTS_SIM_ANALYTIC_SCENARIOS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "models/results/results.h"
#include "sim/simulate.h"
#include "tests/test_util.h"

namespace exsim::test {

inline constexpr const char* kCosts = R"("costs": {"serialize_bytes_per_s": 1e9, "deserialize_bytes_per_s": 2e9,
  "serialize_row_ns": 0, "deserialize_row_ns": 0,
  "lz4_compress_bytes_per_s": 5e8, "lz4_decompress_bytes_per_s": 2e9, "rpc_cpu_us": 10, "rpc_latency_us": 20,
  "transfer_bytes_per_s": 0, "partition_rows_per_s": 0, "wire_overhead_bytes": 100, "cache_bytes": 0,
  "append_bytes_per_s": 1e9, "core_cache_bytes": 0, "fresh_memory_byte_ns": 0})";

// One sender on host s, one receiver on host r, 0.5 ms apart; rows of exactly 100 B.
inline std::string one_channel(const std::string& policy, std::int64_t rows = 100000) {
  return std::string(R"({"name": "one-channel", )") + kCosts + R"(,
    "cluster": {"hosts": [{"name": "s", "group": "a"}, {"name": "r", "group": "a"}],
                "nic_gbps": 8, "rtt_ms": {"same_group": 0.5}},
    "policies": {"p": )" + policy + R"(},
    "workload": {"queries": [{"name": "q", "exchanges": [
      {"id": "x", "kind": "hash", "rows": )" + std::to_string(rows) + R"(, "row": {"fixed_bytes": 100},
       "lz4_ratio": 1, "senders": {"hosts": ["s"], "per_host": 1}, "receivers": {"hosts": ["r"], "per_host": 1}}]}]}})";
}

inline RunResult run(const std::string& json, const std::vector<std::string>& overrides = {}) {
  const Scenario s = test::scenario_from(json, overrides);
  return simulate(s, s.policies[0]);
}

}  // namespace exsim::test

#endif  // EXSIM_TESTS_SIM_ANALYTIC_SCENARIOS_H_
