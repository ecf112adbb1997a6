// The cache grid's comparison (calibrate --grid): routing judged net of the
// pages each side counts as first written, so that a point measured after
// others in one process (which reuses their memory) is not charged the model's
// first-touch cost as a routing error; a grid written before deserialization
// was measured says nothing of it; and a written grid read back whole.
#include <doctest/doctest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "workflows/cache_grid.h"
#include "models/scenario/costs.h"

namespace exsim::workflows {
namespace {

GridPoint point(double measured_ns, double faults, double predicted_ns, double fresh_bytes, double fresh_ns) {
  GridPoint g;
  g.point = {12, 64 * 1024, 24, true};
  g.rows = 1000000;
  g.route_ns = {measured_ns, measured_ns * 0.95, measured_ns * 1.05};
  g.route_predicted_ns = predicted_ns;
  g.fault_bytes_per_row = faults;
  g.fresh_predicted_bytes_per_row = fresh_bytes;
  g.fresh_ns_per_byte = fresh_ns;
  g.call_ns = {50000, 49000, 51000};
  g.call_predicted_ns = 55000;
  return g;
}

TEST_CASE("the grid judges routing net of the pages first written, each side its own") {
  // Measured 10 ns a row with no page faulted (the memory reused); the model
  // 10.5 ns, of which 16 B a row of fresh memory at 0.3 ns: 5.7 ns routing.
  const GridPoint reused = point(10, 0, 10.5 + 16 * 0.3, 16, 0.3);
  CHECK(reused.route_measured_net() == doctest::Approx(10));
  CHECK(reused.route_predicted_net() == doctest::Approx(10.5));
  CHECK(reused.route_error() == doctest::Approx(0.05));
  // The same point measured first in its process: the faults measured are taken out too.
  const GridPoint fresh = point(10 + 16 * 0.3, 16, 10.5 + 16 * 0.3, 16, 0.3);
  CHECK(fresh.route_error() == doctest::Approx(0.05));
  // Judged raw, the first would have been 53% over.
  CHECK((10.5 + 16 * 0.3) / 10 - 1 == doctest::Approx(0.53));
  // Its spread is over the net figure.
  CHECK(reused.route_spread() == doctest::Approx(0.1));
}

TEST_CASE("the grid's table counts the points within 10%, and deserialization only where it was measured") {
  std::vector<GridPoint> grid = {point(10, 0, 10.5, 0, 0.3), point(10, 0, 12, 0, 0.3)};
  std::string table = grid_table(grid);
  CHECK(table.find("1 of 2 points within 10%") != std::string::npos);
  CHECK(table.find("largest error 20.0%") != std::string::npos);
  CHECK(table.find("deserialization per byte") == std::string::npos);
  grid[0].decode_ns_per_byte = 0.1;
  grid[0].decode_predicted_ns_per_byte = 0.13;
  table = grid_table(grid);
  CHECK(table.find("deserialization per byte: 0 of 1 points within 10%, largest error 30.0%") != std::string::npos);
}

TEST_CASE("a grid written is read back with its measurements") {
  std::vector<GridPoint> grid = {point(10, 16, 11, 15, 0.3)};
  grid[0].decode_ns_per_byte = 0.12;
  const std::string path = (std::filesystem::temp_directory_path() / "exsim-cache-grid-test.json").string();
  {
    std::ofstream out(path);
    out << grid_json(grid, CostProfile{});
  }
  const std::vector<GridPoint> back = read_grid(path);
  std::remove(path.c_str());
  REQUIRE(back.size() == 1);
  CHECK(back[0].point.channels == 12);
  CHECK(back[0].route_ns.median == doctest::Approx(10));
  CHECK(back[0].fault_bytes_per_row == doctest::Approx(16));
  CHECK(back[0].decode_ns_per_byte == doctest::Approx(0.12));
  // The predictions are the model's to make again.
  CHECK(back[0].route_predicted_ns == 0);
}

}  // namespace
}  // namespace exsim::workflows
