// Reports: reading results, each figure's data, and the recommendation.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "models/error.h"
#include "plots/figures.h"
#include "plots/report.h"
#include "plots/report_input.h"

namespace exsim::report {
namespace {

Entry entry(const std::string& label, double wall, double worst, long long flat = 0, int mt_dop = 0) {
  Entry e;
  e.label = e.policy = label;
  e.scenario = "s";
  e.wall_s = wall;
  e.sender_worst = worst;
  e.buffer_flat = flat;
  e.mt_dop = mt_dop;
  e.in_flight = 1;
  return e;
}

TEST_CASE("the recommendation is the fastest result within the budget, against the first") {
  ReportInput in;
  in.entries = {entry("16K", 10, 1e6), entry("64K", 8, 4e6), entry("128K", 7, 9e6)};
  Recommendation r = recommend(in, 5e6);
  REQUIRE(r.best != nullptr);
  CHECK(r.best->label == "64K");
  CHECK(r.text.find("20.0% faster than the baseline 16K") != std::string::npos);
  CHECK(recommend(in, std::nullopt).best->label == "128K");
  CHECK(recommend(in, 1e6).best->label == "16K");  // only the baseline fits
  CHECK(recommend(in, 1e6).text.find("The baseline, 16K, is the fastest") != std::string::npos);
  r = recommend(in, 1e5);
  CHECK(r.best == nullptr);
  CHECK(r.smallest->label == "16K");
  CHECK(r.text.find("No result keeps") != std::string::npos);
}

TEST_CASE("wall-clock against buffer: a series per MT_DOP and in-flight, sorted by buffer") {
  ReportInput in;
  in.entries = {entry("a", 3, 0, 65536, 0), entry("b", 4, 0, 16384, 0), entry("c", 1, 0, 16384, 8),
                entry("budget", 2, 0, 0, 0)};
  const auto figs = figures(in);
  const auto wall = std::find_if(figs.begin(), figs.end(), [](const Figure& f) { return f.name == "wall_vs_buffer"; });
  REQUIRE(wall != figs.end());
  CHECK(wall->csv == "buffer_bytes,\"MT_DOP 0; 1 in flight\"\n16384,4\n65536,3\n\n\n"
                     "buffer_bytes,\"MT_DOP 8; 1 in flight\"\n16384,1\n");
  // Without validation results and RTTs, those figures have no data.
  for (const auto& f : figs) {
    if (f.name == "predicted_vs_measured" || f.name == "rtt_heatmap") CHECK(f.csv.empty());
  }
}

TEST_CASE("results files: arrays, JSON Lines and validation; anything else is named") {
  const auto dir = std::filesystem::temp_directory_path() / "exsim-report-test";
  std::filesystem::create_directories(dir);
  const std::string result =
      R"({"scenario": "s", "policy": "16K", "source": "simulated", "wall_s": 2.5, "rpcs": 100,
          "hosts": [{"name": "h0", "sender_peak_bytes": 10, "sender_expected_bytes": 20, "sender_worst_bytes": 30}],
          "config": {"mt_dop": 4, "buffer": {"flat": 16384}, "in_flight": 2}})";
  std::ofstream(dir / "a.json") << "[" << result << "]";
  std::string line = result;
  line.erase(std::remove(line.begin(), line.end(), '\n'), line.end());
  line.insert(1, R"("sweep": {"point": 0, "points": 1, "set": {"mt_dop": 4}}, )");
  std::ofstream(dir / "b.jsonl") << line << "\n";
  std::ofstream(dir / "bad.jsonl") << line << "\nnot json\n";
  const ReportInput in = read_report_input({(dir / "a.json").string(), (dir / "b.jsonl").string()});
  REQUIRE(in.entries.size() == 2);
  CHECK(in.entries[0].mt_dop == 4);
  CHECK(in.entries[0].buffer_flat == 16384);
  CHECK(in.entries[0].sender_worst == 30);
  CHECK(in.entries[1].label == "16K mt_dop=4");
  CHECK_THROWS_WITH_AS(read_report_input({(dir / "bad.jsonl").string()}), doctest::Contains("bad.jsonl:2:"),
                       ScenarioError);
  // A value out of its range is named by its pointer, as in a scenario; a
  // truncated array by its line and column.
  const std::size_t wall = result.find("2.5");
  const std::string negative = result.substr(0, wall) + "-1" + result.substr(wall + 3);
  std::ofstream(dir / "negative.json") << "[" << negative << "]";
  CHECK_THROWS_WITH_AS(read_report_input({(dir / "negative.json").string()}),
                       doctest::Contains("negative.json:/0/wall_s: expected a number >= 0, got -1"), ScenarioError);
  std::ofstream(dir / "truncated.json") << "[" << result;
  CHECK_THROWS_WITH_AS(read_report_input({(dir / "truncated.json").string()}),
                       doctest::Contains("truncated.json:3:"), ScenarioError);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace exsim::report
