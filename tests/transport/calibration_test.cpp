// Calibration's summary: each figure the median of its samples (from however
// many measure_costs calls), its range kept, the profile complete and loadable.
#include <doctest/doctest.h>

#include <unistd.h>

#include <cstdio>

#include <nlohmann/json.hpp>

#include "models/scenario_loader.h"
#include "transport/calibration/calibrate.h"

namespace exsim::transport {
namespace {

TEST_CASE("calibration: medians of the samples, their spread, a loadable profile") {
  CalibrationSamples samples{
      {"serialize_bytes_per_s", {2e9, 1e9, 3e9}},  // median 2e9
      {"deserialize_bytes_per_s", {4e9, 6e9}},     // even count: mean of the middle two
      {"lz4_compress_bytes_per_s", {3e8}},
      {"lz4_decompress_bytes_per_s", {2e9}},
      {"partition_rows_per_s", {2e7}},
      {"rpc_cpu_us", {40, 44, 38, 41, 90}},  // an outlier does not move the median much
      {"rpc_cpu_busy_us", {9, 8, 10}},
      {"rpc_latency_us", {1}},
      {"transfer_bytes_per_s", {5e9}},
      {"wire_overhead_bytes", {88, 88}},
  };
  const Calibration c = summarize_costs(samples);
  CHECK(c.profile.serialize_bytes_per_s == 2e9);
  CHECK(c.profile.deserialize_bytes_per_s == 5e9);
  CHECK(c.profile.rpc_cpu_us == 41);
  CHECK(c.profile.rpc_cpu_busy_us == 9);
  CHECK(c.spread.at("rpc_cpu_us").min == 38);
  CHECK(c.spread.at("rpc_cpu_us").max == 90);
  CHECK(c.profile.wire_overhead_bytes == 88);
  CHECK(c.profile.cores == available_cores());
  CHECK(c.profile.cores >= 1);
  CHECK(c.sources.count("rpc_cpu_us") == 1);

  // The profile it writes is one the scenario loader reads back, figure for figure.
  const std::string json = cost_profile_json(c.profile, "test", c.sources, c.spread);
  const auto path = std::string("/tmp/exsim-calibration-test-") + std::to_string(::getpid()) + ".json";
  {
    FILE* f = std::fopen(path.c_str(), "w");
    REQUIRE(f);
    std::fputs(json.c_str(), f);
    std::fclose(f);
  }
  const CostProfile back = load_cost_profile(path);
  std::remove(path.c_str());
  CHECK(back.serialize_bytes_per_s == doctest::Approx(2e9));
  CHECK(back.partition_rows_per_s == doctest::Approx(2e7));
  CHECK(back.transfer_bytes_per_s == doctest::Approx(5e9));
  CHECK(back.rpc_cpu_us == doctest::Approx(41));
  CHECK(back.rpc_cpu_busy_us == doctest::Approx(9));
  CHECK(back.cores == c.profile.cores);
  CHECK(nlohmann::json::parse(json)["spread"]["rpc_cpu_us"]["max"] == 90);
}

}  // namespace
}  // namespace exsim::transport
