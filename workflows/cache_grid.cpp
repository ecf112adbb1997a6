#include "workflows/cache_grid.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "models/base/json_reader.h"
#include "models/base/size.h"
#include "models/base/text_table.h"
#include "models/rules/cache_load.h"
#include "models/scenario/policy.h"
#include "models/scenario/scenario_loader.h"
#include "sim/simulate.h"
#include "transport/calibration/benchmarks.h"

namespace exsim::workflows {
namespace {

std::vector<transport::CachePoint> grid_points(const GridOptions& options) {
  std::vector<transport::CachePoint> points;
  for (bool one : {true, false}) {
    if (!one && !options.three_senders) continue;
    for (int c : options.channels) {
      for (Bytes b : options.buffers) points.push_back({c, b, 24, one});
    }
  }
  if (options.wide_rows) {
    for (int c : {3, 12, 48, 81}) {
      for (Bytes b : {16 * kKiB, 64 * kKiB, 256 * kKiB, kMiB}) points.push_back({c, b, 200, true});
    }
  }
  return points;
}

std::string point_name(const transport::CachePoint& p) {
  return fmt::format("{} x {}{}{}", p.channels, format_size(p.buffer), p.one_sender ? "" : ", 3 senders",
                     p.fixed_bytes > 24 ? ", 216 B rows" : "");
}

}  // namespace

std::vector<GridPoint> measure_cache_grid(const GridOptions& options) {
  const auto say = [&](const std::string& line) {
    if (options.progress) options.progress(line);
  };
  say("the serialize stage's per-call part (one-row calls)");
  std::vector<double> per_call;
  for (int r = 0; r < options.repetitions; ++r) per_call.push_back(transport::measure_serialize_per_call_ns(options.scale, 1 + r));
  const double serialize_per_call = spread_of(per_call).median;
  std::vector<GridPoint> grid;
  const auto points = grid_points(options);
  for (std::size_t i = 0; i < points.size(); ++i) {
    const transport::CachePoint& point = points[i];
    say(fmt::format("point {}/{}: {}", i + 1, points.size(), point_name(point)));
    std::vector<double> route, call, faults, decode;
    GridPoint g;
    g.point = point;
    // Copying and the pages first written stay in: the model's prediction has both.
    const transport::SerializeParts parts{serialize_per_call, {}, 0};
    for (int r = 0; r < options.repetitions; ++r) {
      const transport::CacheSample s =
          transport::measure_cache_point(point, options.scale, 1 + static_cast<std::uint64_t>(r), parts);
      route.push_back(s.route.route_ns);
      call.push_back(s.call_ns);
      faults.push_back(s.fault_bytes_per_row);
      decode.push_back(s.sample.deserialize_ns / std::max(1.0, s.sample.bytes_uncompressed));
      g.rows = static_cast<std::int64_t>(s.sample.rows);
    }
    g.route_ns = spread_of(route);
    g.call_ns = spread_of(call);
    g.fault_bytes_per_row = spread_of(faults).median;
    g.decode_ns_per_byte = spread_of(decode).median;
    grid.push_back(g);
  }
  return grid;
}

void predict_cache_grid(std::vector<GridPoint>& grid, const CostProfile& costs) {
  for (GridPoint& g : grid) {
    Scenario scenario = parse_scenario(transport::cache_point_scenario(g.point, g.rows, 1), "(grid point)");
    scenario.costs = costs;
    const Policy& policy = scenario.policies.front();
    const RunResult predicted = simulate(scenario, policy);
    const auto load = sender_cache_load(scenario, policy, scenario.queries.front().exchanges.front()).front();
    g.working_set = load.working_set;
    g.streams = load.streams;
    g.route_predicted_ns = predicted.cpu_s.serialize * 1e9 / static_cast<double>(std::max<std::int64_t>(1, g.rows));
    g.call_predicted_ns = (predicted.cpu_s.rpc + predicted.cpu_s.call) * 1e9 / std::max(1.0, static_cast<double>(predicted.rpcs));
    g.decode_predicted_ns_per_byte = predicted.cpu_s.deserialize * 1e9 / std::max(1.0, predicted.bytes_uncompressed);
    // The memory the model takes from the kernel: its serialize stage with that cost and without.
    g.fresh_ns_per_byte = costs.fresh_memory_byte_ns;
    if (costs.fresh_memory_byte_ns > 0) {
      scenario.costs.fresh_memory_byte_ns = 0;
      const double without = simulate(scenario, policy).cpu_s.serialize;
      g.fresh_predicted_bytes_per_row = (predicted.cpu_s.serialize - without) * 1e9 / costs.fresh_memory_byte_ns /
                                        static_cast<double>(std::max<std::int64_t>(1, g.rows));
    }
  }
}

std::vector<GridPoint> read_grid(const std::string& path) {
  const nlohmann::ordered_json json = parse_json_text(read_text_file(path, "a grid (calibrate --grid)"), path);
  Diagnostics diagnostics(path);
  const JsonNode root(&json, "", &diagnostics);
  std::vector<GridPoint> grid;
  for_each_object(root, "grid", [&](const JsonNode& p) {
    GridPoint g;
    g.point.channels = static_cast<int>(p.required("channels").integer(3, 1, 4096));
    g.point.buffer = p.required("buffer").size(16 * kKiB, 1, kBatchHardCap);
    g.point.fixed_bytes = static_cast<int>(p.required("row_fixed_bytes").integer(24, 8, 4096));
    g.point.one_sender = p.required("senders").integer(1, 1, 3) == 1;
    g.rows = p.required("rows").integer(1000, 1, std::int64_t{1} << 40);
    g.route_ns = read_figure_spread(p.required("route_ns_per_row"));
    g.call_ns = read_figure_spread(p.required("rpc_ns_per_call"));
    if (const JsonNode faults = p.member("fault_bytes_per_row"); faults.present()) {
      g.fault_bytes_per_row = faults.number(0, 0, false, 1e9);
    }
    if (const JsonNode decode = p.member("decode_ns_per_byte"); decode.present()) {
      g.decode_ns_per_byte = decode.number(0, 0, false, 1e6);
    }
    grid.push_back(g);
  });
  diagnostics.throw_if_errors();
  return grid;
}

std::string grid_json(const std::vector<GridPoint>& grid, const CostProfile& costs) {
  nlohmann::ordered_json points = nlohmann::ordered_json::array();
  const auto spread = [](const FigureSpread& s) { return nlohmann::ordered_json{{"median", s.median}, {"min", s.min}, {"max", s.max}}; };
  for (const GridPoint& g : grid) {
    points.push_back({{"channels", g.point.channels},
                      {"rows", g.rows},
                      {"buffer", g.point.buffer},
                      {"row_fixed_bytes", g.point.fixed_bytes},
                      {"senders", g.point.one_sender ? 1 : 3},
                      {"working_set_bytes", g.working_set},
                      {"streams", g.streams},
                      {"route_ns_per_row", spread(g.route_ns)},
                      {"route_ns_per_row_predicted", g.route_predicted_ns},
                      {"route_error", g.route_error()},
                      {"rpc_ns_per_call", spread(g.call_ns)},
                      {"rpc_ns_per_call_predicted", g.call_predicted_ns},
                      {"rpc_error", g.call_error()},
                      {"fault_bytes_per_row", g.fault_bytes_per_row},
                      {"fresh_bytes_per_row_predicted", g.fresh_predicted_bytes_per_row},
                      {"decode_ns_per_byte", g.decode_ns_per_byte},
                      {"decode_ns_per_byte_predicted", g.decode_predicted_ns_per_byte}});
  }
  nlohmann::ordered_json out;
  out["grid"] = points;
  out["costs"] = nlohmann::json::parse(cost_profile_json(costs, "the profile each point was simulated with", {}, costs.spread));
  return out.dump(2) + "\n";
}

std::string grid_table(const std::vector<GridPoint>& grid) {
  Table table({"point", "working set", "streams", "routing meas", "spread", "pred", "error", "RPC/call meas",
                   "pred", "error", "faulted B/row", "pred", "decode ns/B", "pred"});
  double worst_route = 0, worst_call = 0, worst_decode = 0;
  int within = 0, within_or_noise = 0, decode_within = 0, decode_measured = 0;
  for (const GridPoint& g : grid) {
    table.add_row({point_name(g.point), format_size(static_cast<Bytes>(g.working_set)), fmt::format("{:.0f}", g.streams),
                   fmt::format("{:.1f} ns", g.route_measured_net()), fmt::format("{:.0f}%", 100 * g.route_spread()),
                   fmt::format("{:.1f} ns", g.route_predicted_net()), fmt::format("{:+.1f}%", 100 * g.route_error()),
                   fmt::format("{:.1f} us", g.call_ns.median * 1e-3), fmt::format("{:.1f} us", g.call_predicted_ns * 1e-3),
                   fmt::format("{:+.1f}%", 100 * g.call_error()), fmt::format("{:.1f}", g.fault_bytes_per_row),
                   fmt::format("{:.1f}", g.fresh_predicted_bytes_per_row), fmt::format("{:.3f}", g.decode_ns_per_byte),
                   fmt::format("{:.3f}", g.decode_predicted_ns_per_byte)});
    worst_route = std::max(worst_route, std::abs(g.route_error()));
    worst_call = std::max(worst_call, std::abs(g.call_error()));
    if (std::abs(g.route_error()) <= 0.10) ++within;
    if (std::abs(g.route_error()) <= std::max(0.10, g.route_spread())) ++within_or_noise;
    if (g.decode_ns_per_byte > 0) {  // a grid written before it was measured has none
      const double decode_error = g.decode_predicted_ns_per_byte / g.decode_ns_per_byte - 1;
      worst_decode = std::max(worst_decode, std::abs(decode_error));
      ++decode_measured;
      if (std::abs(decode_error) <= 0.10) ++decode_within;
    }
  }
  std::string text =
      table.render() +
      fmt::format("\nrouting (net of the pages first written): {} of {} points within 10%, {} within 10% or their own "
                  "repetitions' spread; largest error {:.1f}%\nRPC CPU per call: largest error {:.1f}%\n",
                  within, grid.size(), within_or_noise, 100 * worst_route, 100 * worst_call);
  if (decode_measured > 0) {
    text += fmt::format("deserialization per byte: {} of {} points within 10%, largest error {:.1f}%\n", decode_within,
                        decode_measured, 100 * worst_decode);
  }
  return text;
}

std::string grid_csv(const std::vector<GridPoint>& grid) {
  std::string csv = "channels,buffer_kib,senders,row_bytes,route_ns,route_min,route_max,route_pred,call_us,call_pred_us\n";
  for (const GridPoint& g : grid) {
    const double net = g.route_ns.median - g.route_measured_net();  // the pages first written, taken out
    csv += fmt::format("{},{},{},{},{:.3f},{:.3f},{:.3f},{:.3f},{:.3f},{:.3f}\n", g.point.channels, g.point.buffer / 1024,
                       g.point.one_sender ? 1 : 3, g.point.fixed_bytes + 16, g.route_measured_net(), g.route_ns.min - net,
                       g.route_ns.max - net, g.route_predicted_net(), g.call_ns.median * 1e-3, g.call_predicted_ns * 1e-3);
  }
  return csv;
}

}  // namespace exsim::workflows
