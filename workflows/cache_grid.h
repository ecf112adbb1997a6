// `calibrate --grid`: the real exchange's routing and RPC costs measured over
// a grid of fan-outs and batch sizes, each point simulated with a costs
// profile beside it, so that the model's cache (models/rules/cache_load.h) is
// held to points it was not fitted on: channels a sender 3 to 81, batches 16K
// to 1M, one sender and three sharing the cache, and wide rows.
#ifndef EXSIM_WORKFLOWS_CACHE_GRID_H_
#define EXSIM_WORKFLOWS_CACHE_GRID_H_

#include <functional>
#include <string>
#include <vector>

#include "models/scenario/costs.h"
#include "transport/calibration/cache_benchmarks.h"

namespace exsim::workflows {

struct GridOptions {
  std::vector<int> channels = {3, 12, 24, 48, 81};
  std::vector<Bytes> buffers = {16 * kKiB, 32 * kKiB, 64 * kKiB, 128 * kKiB, 256 * kKiB, 512 * kKiB, kMiB};
  bool three_senders = true;   // also the grid with a sender on each host
  bool wide_rows = true;       // also rows of 216 B at 3, 12, 48 and 81 channels, four sizes
  int repetitions = 3;         // of each point; the median is compared
  double scale = 1.0;
  std::function<void(const std::string&)> progress;
};

struct GridPoint {
  transport::CachePoint point;
  std::int64_t rows = 0;  // of the exchange measured
  double working_set = 0, streams = 0;
  // Routing and copying per row (the serialize stage less its per-call part),
  // measured (median, least, largest over the repetitions) and simulated.
  FigureSpread route_ns;
  double route_predicted_ns = 0;
  // RPC CPU per call, both sides, measured and simulated.
  FigureSpread call_ns;
  double call_predicted_ns = 0;
  // Pages the sender faulted in per row (the median repetition's), and what the
  // model takes from the kernel for it, in bytes.
  double fault_bytes_per_row = 0, fresh_predicted_bytes_per_row = 0;
  // The deserialize stage per decoded byte, measured (median) and simulated.
  double decode_ns_per_byte = 0, decode_predicted_ns_per_byte = 0;
  // The cost a byte of memory first written the points were simulated with.
  double fresh_ns_per_byte = 0;
  // Routing compared net of the pages first written, each side its own: a point
  // measured after others in one process reuses memory they freed, where the
  // model counts a run's memory from nothing (docs/validation.md, "Caches").
  double route_measured_net() const { return route_ns.median - fault_bytes_per_row * fresh_ns_per_byte; }
  double route_predicted_net() const { return route_predicted_ns - fresh_predicted_bytes_per_row * fresh_ns_per_byte; }
  double route_error() const { return route_measured_net() > 0 ? route_predicted_net() / route_measured_net() - 1 : 0; }
  double call_error() const { return call_ns.median > 0 ? call_predicted_ns / call_ns.median - 1 : 0; }
  // The measurement's own spread over its median: how far noise alone moved it.
  double route_spread() const {
    return route_measured_net() > 0 ? (route_ns.max - route_ns.min) / route_measured_net() : 0;
  }
};

// Measures every point (the predictions left at 0). Throws
// std::runtime_error when an exchange fails.
std::vector<GridPoint> measure_cache_grid(const GridOptions& options);
// Simulates every point with `costs` (their `cores` the machine's) and fills
// in the predictions and the load.
void predict_cache_grid(std::vector<GridPoint>& grid, const CostProfile& costs);
// A grid grid_json wrote, its measurements, to be simulated again
// (`calibrate --grid-measured`). Throws ScenarioError naming the file and the
// JSON path on a malformed one.
std::vector<GridPoint> read_grid(const std::string& path);

// The grid as JSON (each point, its figures and errors, and the profile), and
// as a text table with the errors' summary.
std::string grid_json(const std::vector<GridPoint>& grid, const CostProfile& costs);
std::string grid_table(const std::vector<GridPoint>& grid);
// The CSV that plots/cache_grid.gp draws: one line per point.
std::string grid_csv(const std::vector<GridPoint>& grid);

}  // namespace exsim::workflows

#endif  // EXSIM_WORKFLOWS_CACHE_GRID_H_
