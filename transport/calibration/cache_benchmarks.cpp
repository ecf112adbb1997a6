#include "transport/calibration/cache_benchmarks.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "models/base/size.h"
#include "models/rules/cache_load.h"
#include "models/rules/sizing_policy.h"
#include "models/scenario/scenario_loader.h"
#include "transport/calibration/calibrate.h"

namespace exsim::transport {
namespace {

// Each channel fills its buffers (the one being filled and two in flight) six
// times over, so that the buffers are reused as they are in a long exchange.
constexpr double kFillsPerChannel = 6;
constexpr double kLeastRows = 1e6;

BenchmarkShape shape_of(const CachePoint& point, std::int64_t rows, std::uint64_t seed) {
  BenchmarkShape shape;
  shape.rows = rows;
  shape.policy = fmt::format(R"({{"buffer": {{"flat": {}}}, "in_flight": 2, "compression": "none"}})", point.buffer);
  shape.receivers_per_host = std::max(1, point.channels / 3);
  shape.one_sender = point.one_sender;
  shape.fixed_bytes = point.fixed_bytes;
  shape.seed = seed;
  return shape;
}

}  // namespace

const std::vector<CachePoint>& calibration_cache_points() {
  static const std::vector<CachePoint> points = {
      {3, 16 * kKiB},     // 0: cached
      {3, 256 * kKiB},    // 1: cached, large calls (with 0: the RPC bytes in the cache)
      {48, 512 * kKiB},   // 2: far beyond the cache, many streams
      {48, 512 * kKiB, 200},  // 3: the same, rows of 216 B: per row and per byte
      {12, 2 * kMiB},     // 4: far beyond, few streams
      {81, 256 * kKiB},   // 5: far beyond, more streams
      {48, 16 * kKiB},    // 6: below the knee (with 2: the RPC bytes beyond the cache)
      {48, 32 * kKiB},    // 7: the knee
      {48, 128 * kKiB},   // 8
      {24, 256 * kKiB},   // 9
      // Three senders sharing the core: three times the streams interleaved.
      {12, 512 * kKiB, 24, false},  // 10: far beyond, 36 streams
      {81, 64 * kKiB, 24, false},   // 11: far beyond, 243 streams
      // Wide rows in the core's cache and beyond it: appending per byte, and the core's misses.
      {3, 16 * kKiB, 200},   // 12
      {3, 256 * kKiB, 200},  // 13
      // The level far beyond the shared cache, untracked streams and tracked:
      // without them the fit extrapolates it from the knee's slope.
      {81, kMiB},             // 14
      {24, kMiB, 24, false},  // 15
  };
  return points;
}

std::string cache_point_scenario(const CachePoint& point, std::int64_t rows, std::uint64_t seed) {
  return benchmark_scenario(shape_of(point, rows, seed));
}

CachePointRun prepare_cache_point(const CachePoint& point, double scale, std::uint64_t seed) {
  // The scenario once with a few rows, for its batch size and the load.
  Scenario scenario = parse_scenario(benchmark_scenario(shape_of(point, 1000, seed)), "(calibration benchmark)");
  scenario.costs.cores = available_cores();  // every emulated host on this machine's cores and cache
  const Exchange& x = scenario.queries.front().exchanges.front();
  const Policy& policy = scenario.policies.front();
  const double row_bytes = static_cast<double>(x.row.fixed_bytes) + x.row.varlen.mean();
  const BatchSize batch = full_channel_batch(channel_capacity(policy, x.row, x.receivers.instances()), row_bytes);
  const double senders = point.one_sender ? 1 : 3;
  const auto rows = static_cast<std::int64_t>(
      std::max(1000.0, scale * std::max(kLeastRows, kFillsPerChannel * senders * x.receivers.instances() *
                                                         static_cast<double>(batch.rows))));
  return {cache_point_scenario(point, rows, seed), sender_cache_load(scenario, policy, x).front()};
}

CacheSample measure_cache_point(const CachePoint& point, double scale, std::uint64_t seed, const SerializeParts& parts) {
  const CachePointRun run = prepare_cache_point(point, scale, seed);
  CacheSample out;
  out.point = point;
  out.scenario = run.scenario;
  out.sample = run_benchmark(out.scenario);
  const Sample& s = out.sample;
  out.route.working_set = run.load.working_set;
  out.route.streams = run.load.streams;
  out.route.row_bytes = s.tuple_bytes / std::max(1.0, s.rows);
  out.route.own_working_set = run.load.own_working_set;
  // A hash sender's copy per byte is its own (appended a row at a time), fitted
  // with the routing; its part per row is the whole-batch senders'.
  const double aside = s.rpcs * parts.per_call_ns + parts.copying.row_ns * s.rows +
                       s.sender_fault_bytes * parts.fresh_ns_per_byte;
  out.route.route_ns = std::max(0.1, (s.serialize_ns - aside) / std::max(1.0, s.rows));
  out.call_ns = s.rpc_ns / std::max(1.0, s.rpcs);
  out.call_bytes = s.bytes_wire / std::max(1.0, s.rpcs);
  out.fault_bytes_per_row = s.sender_fault_bytes / std::max(1.0, s.rows);
  return out;
}

std::map<std::string, double> cache_figures_of(const std::vector<CacheMeasure>& points, double core_cache_bytes) {
  std::vector<RoutePoint> routes;
  for (const CacheMeasure& m : points) routes.push_back(m.route);
  const CacheFigures cache = fit_cache(routes, core_cache_bytes);
  std::map<std::string, double> figures;
  figures["partition_rows_per_s"] = 1e9 / std::max(1e-3, cache.partition_ns);
  figures["append_bytes_per_s"] = 1e9 / std::max(1e-3, cache.append_byte_ns);
  figures["core_miss_byte_ns"] = cache.core_miss_byte_ns;
  figures["cache_bytes"] = cache.cache_bytes;
  figures["prefetch_streams"] = cache.prefetch_streams;
  figures["prefetched_miss_share"] = cache.prefetched_share;
  figures["cache_miss_row_ns"] = cache.miss_row_ns;
  figures["cache_miss_byte_ns"] = cache.miss_byte_ns;
  figures["decode_miss_byte_ns"] = fit_decode_miss(points, cache.cache_bytes);
  return figures;
}

std::map<std::string, double> measure_cache_figures(double scale, std::uint64_t seed,
                                                    const std::function<void(const std::string&)>& say,
                                                    const SerializeParts& parts, std::vector<CacheMeasure>& measured) {
  measured.clear();
  for (const CachePoint& point : calibration_cache_points()) {
    say(fmt::format("the cache: routing among {} channels, {} batches{}", point.channels, format_size(point.buffer),
                    point.fixed_bytes > 24 ? ", wide rows" : ""));
    const CacheSample c = measure_cache_point(point, scale, seed, parts);
    const double bytes = c.sample.tuple_bytes + 8 * c.sample.rows;
    measured.push_back({c.route, bytes > 0 ? c.sample.deserialize_ns / bytes : 0});
  }
  return cache_figures_of(measured, core_cache_bytes());
}

}  // namespace exsim::transport
