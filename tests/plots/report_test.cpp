// Reports: reading results, each figure's data, and the recommendation.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "models/base/error.h"
#include "models/results/report_input.h"
#include "plots/figures.h"
#include "plots/gnuplot.h"
#include "plots/report.h"
#include "tests/test_util.h"

namespace exsim::report {
namespace {

const std::string kScenario = "s";

Entry entry(const std::string& label, double wall, double worst, long long flat = 0, int mt_dop = 0) {
  Entry e;
  e.label = label;
  e.policy = label;
  e.scenario = kScenario;
  e.wall_s = wall;
  e.sender_worst = worst;
  e.buffer_flat = flat;
  e.mt_dop = mt_dop;
  e.in_flight = 1;
  return e;
}

Figure figure_named(const std::vector<Figure>& figures, const std::string& name) {
  for (const auto& f : figures) {
    if (f.name == name) return f;
  }
  FAIL("no figure " << name);
  return {};
}

TEST_CASE("the report's first plot is wall-clock against memory, each result on the front or dominated") {
  // 16K slow and small, 32K and 64K faster with more memory: each on the front;
  // 128K slower than 64K with more memory: dominated.
  ReportInput in;
  in.entries = {entry("16K", 3, 1e6), entry("64K", 1, 4e6), entry("128K", 1.5, 9e6), entry("32K", 2, 2e6)};
  const auto figs = figures(in);
  REQUIRE(!figs.empty());
  CHECK(figs.front().name == "wall_vs_memory");
  const std::string csv = figs.front().csv;
  CAPTURE(csv);
  CHECK(csv.rfind("result,sender_worst_bytes,wall_s,on_front,label_bytes,label_wall_s,label\n", 0) == 0);
  for (const char* row : {"\n\"#1 16K\",1000000,3,1,", "\n\"#2 64K\",4000000,1,1,", "\n\"#3 128K\",9000000,1.5,0,",
                          "\n\"#4 32K\",2000000,2,1,"}) {
    CHECK(csv.find(row) != std::string::npos);
  }
  // Four points far apart: each labelled whole.
  for (const char* label : {",\"#1 16K\"\n", ",\"#2 64K\"\n", ",\"#3 128K\"\n", ",\"#4 32K\"\n"}) {
    CHECK(csv.find(label) != std::string::npos);
  }
  // Results of another environment point do not dominate: at MT_DOP 8, 128K alone is on its own front.
  in.entries[2].settings = {{"mt_dop", "8"}};
  CHECK(figures(in).front().csv.find("\"#3 128K\",9000000,1.5,1,") != std::string::npos);
}

TEST_CASE("the recommendation is the least memory within the margin of the fastest within the budget") {
  ReportInput in;
  in.entries = {entry("16K", 10, 1e6), entry("64K", 8, 4e6), entry("128K", 7, 9e6)};
  Recommendation r = recommend(in, 5e6).at(0);
  REQUIRE(r.best != nullptr);
  CHECK(r.best->label == "64K");
  CHECK(r.text.find("20.0% faster than the baseline 16K") != std::string::npos);
  CHECK(recommend(in, std::nullopt).at(0).best->label == "128K");
  CHECK(recommend(in, 1e6).at(0).best->label == "16K");  // only the baseline fits
  CHECK(recommend(in, 1e6).at(0).text.find("The baseline, 16K, is the pick within the 977 KiB budget") != std::string::npos);
  r = recommend(in, 1e5).at(0);
  CHECK(r.best == nullptr);
  CHECK(r.smallest->label == "16K");
  CHECK(r.text.find("No result keeps") != std::string::npos);
  // A baseline over the budget can be faster than anything within it.
  in.entries = {entry("128K", 7, 9e6), entry("16K", 10, 1e6)};
  CHECK(recommend(in, 2e6).at(0).text.find("42.9% slower than the baseline 128K (7.000 s, over the budget)") !=
        std::string::npos);
  // 128K 1.2% faster than 64K, within a 2% margin: 64K takes less memory, and is recommended.
  in.entries = {entry("16K", 10, 1e6), entry("64K", 8, 4e6), entry("128K", 7.9, 9e6)};
  r = recommend(in, std::nullopt, 0.02).at(0);
  CHECK(r.best->label == "64K");
  CHECK(r.fastest->label == "128K");
  REQUIRE(r.close.size() == 1);
  CHECK(r.close.front()->label == "128K");
  CHECK(r.text.find("the least worst-case per-host sender memory within 2.0% of the fastest") != std::string::npos);
  CHECK(r.text.find("The fastest, 128K, is 1.2% faster with 8.58 MiB: within the margin, not told apart.") !=
        std::string::npos);
  // At 1%, 128K is told apart.
  CHECK(recommend(in, std::nullopt, 0.01).at(0).best->label == "128K");
}

TEST_CASE("the costs' range: the recommendation says whether the order holds at both ends") {
  ReportInput in;
  in.entries = {entry("16K", 10, 1e6), entry("64K", 8, 4e6), entry("128K", 7.9, 9e6)};
  const auto range = [&](std::size_t i, double cheap, double dear) {
    in.entries[i].wall_cheap_s = cheap;
    in.entries[i].wall_dear_s = dear;
  };
  range(0, 9, 12);
  range(1, 7, 9);
  range(2, 6.5, 9.5);  // ahead as simulated and at the cheap end, behind 64K at the dear end
  // At a margin of 0.5% 128K is the pick, 64K 1.3% slower.
  CHECK(recommend(in, std::nullopt, 0.005).at(0).best->label == "128K");
  CHECK(recommend(in, std::nullopt, 0.005).at(0).text.find(
            "Within the costs' range 64K is faster by more than the margin at one end: the pick turns on the costs.") !=
        std::string::npos);
  range(2, 6.5, 8.9);
  CHECK(recommend(in, std::nullopt, 0.005).at(0).text.find(
            "It stays within the margin of every other result at both ends of the costs' range.") != std::string::npos);
  // Without ranges, nothing is said of them.
  range(1, -1, -1);
  range(2, -1, -1);
  CHECK(recommend(in, std::nullopt, 0.005).at(0).text.find("costs' range") == std::string::npos);
}

TEST_CASE("results of several scenarios: each against its own first result, recommended apart") {
  ReportInput in;
  in.entries = {entry("16K", 10, 1e6), entry("64K", 8, 4e6), entry("16K", 2, 1e6), entry("64K", 1, 4e6)};
  in.entries[2].scenario = in.entries[3].scenario = "t";
  CHECK(in.baselines() == std::vector<std::size_t>{0, 0, 2, 2});
  const auto all = recommend(in, std::nullopt);
  REQUIRE(all.size() == 2);
  CHECK(all[0].best == &in.entries[1]);
  CHECK(all[1].best == &in.entries[3]);  // not the first scenario's, nor across workloads
  CHECK(all[1].text.find("50.0% faster than the baseline 16K (2.000 s)") != std::string::npos);
  const std::string text = recommendation_text(all);
  CHECK(text.find("s: Recommended: 64K") == 0);
  CHECK(text.find("\nt: Recommended: 64K") != std::string::npos);  // a line each
  const std::string md = render_markdown(in, ReportOptions{});
  CHECK(md.find("| #4 | t / 64K | 1.000 s | -50.0% |") != std::string::npos);
  CHECK(md.find("result(s) of scenarios s, t") != std::string::npos);
}

TEST_CASE("Markdown escapes what would break a table or start markup; short walls read in ms") {
  ReportInput in;
  in.entries = {entry("a|b <i>x</i> *y*", 0.000097, 1e6), entry("16K", 2, 1 << 20)};
  ReportOptions options;
  options.title = "T_1";
  const std::string md = render_markdown(in, options);
  CHECK(md.find("## T\\_1") != std::string::npos);
  const std::size_t row = md.find("| #1 |");
  REQUIRE(row != std::string::npos);
  const std::string line = md.substr(row, md.find('\n', row) - row);
  CAPTURE(line);
  std::size_t cells = 0;  // unescaped bars
  for (std::size_t i = 0; i < line.size(); ++i) cells += line[i] == '|' && (i == 0 || line[i - 1] != '\\') ? 1 : 0;
  CHECK(cells == 12);  // eleven columns
  CHECK(line.find("a\\|b \\<i\\>x\\</i\\> \\*y\\*") != std::string::npos);
  CHECK(line.find("0.097 ms") != std::string::npos);
}

TEST_CASE("a plot's ids carry its name, and so do the references to them") {
  const std::string svg = "<svg><defs><path id='gpPt1' d='M0'/><path id='gpPt10' d='M1'/></defs>"
                          "<g id=\"gnuplot_canvas\" fill='#ffffff' stroke-width='1'>"
                          "<use xlink:href='#gpPt1'/><use xlink:href='#gpPt10'/><rect filter='url(#gpPt1)'/></g></svg>";
  CHECK(prefix_ids(svg, "rpcs-") ==
        "<svg><defs><path id='rpcs-gpPt1' d='M0'/><path id='rpcs-gpPt10' d='M1'/></defs>"
        "<g id=\"rpcs-gnuplot_canvas\" fill='#ffffff' stroke-width='1'>"
        "<use xlink:href='#rpcs-gpPt1'/><use xlink:href='#rpcs-gpPt10'/><rect filter='url(#rpcs-gpPt1)'/></g></svg>");
}

TEST_CASE("wall-clock against buffer: a series per MT_DOP and in-flight, sorted by buffer") {
  ReportInput in;
  in.entries = {entry("a", 3, 0, 65536, 0), entry("b", 4, 0, 16384, 0), entry("c", 1, 0, 16384, 8),
                entry("budget", 2, 0, 0, 0)};
  const auto figs = figures(in);
  const auto wall = std::find_if(figs.begin(), figs.end(), [](const Figure& f) { return f.name == "wall_vs_buffer"; });
  REQUIRE(wall != figs.end());
  // One table for pandas: a column per series, a row per buffer, empty where a series has none.
  // What every series shares is in the title, not the key.
  CHECK(wall->csv == "buffer_bytes,\"MT_DOP 0\",\"MT_DOP 8\"\n"
                     "16384,4,1\n65536,3,\n");
  CHECK(wall->title == "Wall-clock against buffer size (1 in flight)");
  // Two results at one buffer that differ in a policy setting are two series;
  // two that differ in nothing but their policy's name, told apart by it.
  ReportInput same;
  same.entries = {entry("once", 6.7, 0, 16384), entry("per-channel", 30.5, 0, 16384), entry("x", 1, 0, 16384),
                  entry("y", 2, 0, 16384)};
  same.entries[0].config = {{"broadcast_serialize", "once"}};
  same.entries[1].config = {{"broadcast_serialize", "per_channel"}};
  same.entries[2].config = same.entries[3].config = {{"broadcast_serialize", "once"}};
  const std::string csv = figure_named(figures(same), "wall_vs_buffer").csv;
  CAPTURE(csv);
  CHECK(csv.find("\n16384,6.7,30.5,1,2\n") != std::string::npos);
  CHECK(csv.find(",\"broadcast_serialize per_channel\",") != std::string::npos);
  CHECK(csv.find(",\"broadcast_serialize once; policy x\",") != std::string::npos);
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
          "bytes_wire": 1000, "bytes_uncompressed": 1500,
          "hosts": [{"name": "h0", "sender_peak_bytes": 10, "sender_expected_bytes": 20, "sender_worst_bytes": 30}],
          "config": {"mt_dop": 4, "buffer": {"flat": 16384}, "in_flight": 2}})";
  std::ofstream(dir / "a.json") << "[" << result << "]";
  std::string line = result;
  line.erase(std::remove(line.begin(), line.end(), '\n'), line.end());
  line.insert(1, R"("sweep": {"point": 0, "points": 1, "set": {"mt_dop": 4}}, )");
  std::ofstream(dir / "b.jsonl") << line << "\n";
  std::ofstream(dir / "bad.jsonl") << line << "\nnot json\n";
  // A parallel sweep's points finish in any order; the report reads them by point.
  std::string point1 = line, point0 = line;
  point1 = test::with_value(test::with_value(point1, "/sweep/point", "1"), "/wall_s", "7.5");
  std::ofstream(dir / "unordered.jsonl") << point1 << "\n" << point0 << "\n";
  const ReportInput ordered = read_report_input({(dir / "unordered.jsonl").string()});
  REQUIRE(ordered.entries.size() == 2);
  CHECK(ordered.entries[0].sweep_point == 0);
  CHECK(ordered.entries[0].wall_s == 2.5);
  CHECK(ordered.entries[1].sweep_point == 1);
  std::ofstream(dir / "empty.json") << "[]";
  CHECK_THROWS_WITH_AS(read_report_input({(dir / "a.json").string(), (dir / "empty.json").string()}),
                       doctest::Contains("empty.json: no results in it"), InputError);
  const ReportInput in = read_report_input({(dir / "a.json").string(), (dir / "b.jsonl").string()});
  REQUIRE(in.entries.size() == 2);
  CHECK(in.entries[0].mt_dop == 4);
  CHECK(in.entries[0].buffer_flat == 16384);
  CHECK(in.entries[0].sender_worst == 30);
  CHECK(in.entries[1].label == "16K (MT_DOP 4)");  // settings in words, not JSON paths
  CHECK_THROWS_WITH_AS(read_report_input({(dir / "bad.jsonl").string()}), doctest::Contains("bad.jsonl:2:"),
                       InputError);
  // A value out of its range is named by its pointer, as in a scenario; a
  // truncated array by its line and column.
  const std::string negative = test::with_value(result, "/wall_s", "-1");
  std::ofstream(dir / "negative.json") << "[" << negative << "]";
  CHECK_THROWS_WITH_AS(read_report_input({(dir / "negative.json").string()}),
                       doctest::Contains("negative.json:/0/wall_s: expected a number >= 0, got -1"), InputError);
  std::ofstream(dir / "truncated.json") << "[" << result;
  CHECK_THROWS_WITH_AS(read_report_input({(dir / "truncated.json").string()}),
                       doctest::Contains("truncated.json:4:"), InputError);
  // A figure left out is named, not read as 0 (a worst case of 0 B had been recommended).
  std::ofstream(dir / "no-worst.json") << "[" << test::without_value(result, "/hosts/0/sender_worst_bytes") << "]";
  CHECK_THROWS_WITH_AS(read_report_input({(dir / "no-worst.json").string()}),
                       doctest::Contains("no-worst.json:/0/hosts/0: missing required key 'sender_worst_bytes'"),
                       InputError);
  // Another JSON document spread over lines: named as what it is not; cut short: by line and column.
  std::ofstream(dir / "profile.json") << "{\n  \"rpc_cpu_us\": 11\n}\n";
  CHECK_THROWS_WITH_AS(read_report_input({(dir / "profile.json").string()}),
                       doctest::Contains("profile.json: a JSON object that is neither validation results"), InputError);
  std::ofstream(dir / "cut.json") << "{\n  \"comparisons\": [\n";
  CHECK_THROWS_WITH_AS(read_report_input({(dir / "cut.json").string()}), doctest::Contains("cut.json:3:"),
                       InputError);
  std::filesystem::remove_all(dir);
}

TEST_CASE("a validation judged on fewer rows: the report names those left out") {
  const auto dir = std::filesystem::temp_directory_path() / "exsim-report-unjudged";
  std::filesystem::create_directories(dir);
  std::ifstream recorded(std::string(EXSIM_SOURCE_DIR) + "/tests/data/validate/suite-measured.json");
  auto doc = nlohmann::json::parse(recorded);
  doc["summary"]["unjudged"] = {"val-latency / 128K: 1 of 6 runs on a steady machine"};
  std::ofstream(dir / "v.json") << doc.dump();
  const ReportInput in = read_report_input({(dir / "v.json").string()});
  std::filesystem::remove_all(dir);
  REQUIRE(in.verdicts.size() == 1);
  CHECK(in.verdicts[0].outcome == "passed");
  REQUIRE(in.verdicts[0].reasons.size() == 1);
  CHECK(in.verdicts[0].reasons[0] == "unjudged: val-latency / 128K: 1 of 6 runs on a steady machine");
}

TEST_CASE("a validation's report leads with its verdict and thresholds, and recommends no measured twin") {
  const ReportInput in = read_report_input({std::string(EXSIM_SOURCE_DIR) + "/tests/data/validate/suite-measured.json"});
  REQUIRE(in.verdicts.size() == 1);
  CHECK(in.verdicts[0].outcome == "passed");
  CHECK(in.verdicts[0].wall_median_threshold == doctest::Approx(0.05));
  CHECK(in.verdicts[0].wall_max_threshold == doctest::Approx(0.15));
  // Each scenario's choice is among its policies' predictions, never a policy's measured run.
  for (const auto& r : recommend(in, std::nullopt)) {
    CAPTURE(r.scenario);
    REQUIRE(r.best != nullptr);
    CHECK(r.best->source == "simulated");
  }
  const std::string md = render_markdown(in, ReportOptions{});
  const std::size_t verdict = md.find("Validation (");
  REQUIRE(verdict != std::string::npos);
  CHECK(md.find("passed. Median wall-clock error 2.3% (threshold 5%), largest 7.7% (threshold 15%)") !=
        std::string::npos);
  // The recommendation and the verdict come before the tables.
  CHECK(md.find("**") < md.find("| #"));
  CHECK(verdict < md.find("| #"));
}

TEST_CASE("a sweep is recommended per environment point: only policies compete, never MT_DOP or RTTs") {
  // Faster at MT_DOP 8 whatever the policy: a recommendation across points
  // would credit the policy with what the cluster gave (16K at MT_DOP 8, 1 s).
  auto at = [](const std::string& policy, double wall, const std::string& mt_dop, const std::string& rtt) {
    Entry e = entry(policy, wall, 1e6);
    e.settings = {{"mt_dop", mt_dop}, {"cluster.rtt_ms.cross_group", rtt}, {"policies.p.in_flight", "1"}};
    return e;
  };
  ReportInput in;
  in.entries = {at("16K", 3, "0", "0.6"), at("64K", 2, "0", "0.6"), at("16K", 1, "8", "0.6"),
                at("64K", 1.5, "8", "0.6")};
  const auto all = recommend(in, std::nullopt);
  REQUIRE(all.size() == 2);
  CHECK(all[0].environment == "MT_DOP 0, cross-group RTT 0.6 ms");
  CHECK(all[0].best == &in.entries[1]);
  CHECK(all[0].baseline == &in.entries[0]);
  CHECK(all[1].best == &in.entries[2]);  // the point's baseline: no policy beats it there
  const std::string text = recommendation_text(all);
  CHECK(text.find("MT_DOP 8, cross-group RTT 0.6 ms: The baseline, 16K (1 in flight),") !=
        std::string::npos);
  CHECK(text.find("No --memory-budget given") == text.rfind("No --memory-budget given"));  // said once
}

TEST_CASE("the RTT map says which result it shows when the results' RTTs differ") {
  Entry near = entry("16K", 1, 1e6), far = entry("16K", 2, 1e6);
  near.hosts = far.hosts = {"h0", "h1"};
  near.rtt_nominal_ms = {{0.01, 0.1}, {0.1, 0.01}};
  far.rtt_nominal_ms = {{0.01, 0.6}, {0.6, 0.01}};
  ReportInput same;
  same.entries = {near, near};
  CHECK(figure_named(figures(same), "rtt_heatmap").title == "Round-trip times between hosts");
  ReportInput swept;
  swept.entries = {near, far};
  CHECK(figure_named(figures(swept), "rtt_heatmap").title == "Round-trip times between hosts of result #1 (16K); the results' RTTs differ");
  CHECK(figure_named(figures(swept), "rtt_heatmap").csv.find("h0,0.01,0.1\n") != std::string::npos);
}

TEST_CASE("one setting for a whole sweep: the decision rule across its points") {
  ReportInput in;
  const auto at = [](Entry e, const char* mt_dop) {
    e.settings = {{"mt_dop", mt_dop}};
    return e;
  };
  // MT_DOP 0 picks B; MT_DOP 4 picks A. Behind a point's fastest: B 10% at most (at MT_DOP 4), A 25%, C 12.5%.
  in.entries = {at(entry("A", 10, 1e6), "0"), at(entry("B", 8, 4e6), "0"), at(entry("C", 9, 9e6), "0"),
                at(entry("A", 3.0, 1e6), "4"), at(entry("B", 3.3, 4e6), "4"), at(entry("C", 3.1, 9e6), "4")};
  const auto all = recommend(in, std::nullopt, 0.02);
  REQUIRE(all.size() == 2);
  CHECK(all[0].best->label == "B");
  CHECK(all[1].best->label == "A");
  const auto setting = one_setting(all);
  REQUIRE(setting);
  CHECK(setting->choice == "B");
  CHECK(setting->worst_regret == doctest::Approx(0.1));
  CHECK(setting->worst_point == "MT_DOP 4");
  CHECK_FALSE(setting->within_margin);
  const auto lines = recommendation_lines(all);
  CHECK(lines.front() == "One setting for all 2 points: B, at most 10.0% behind a point's fastest (MT_DOP 4): no "
                         "setting is within 2.0% everywhere; each point's own pick follows.");
  // At a 15% margin B and C are within everywhere: the least memory, B; at 30%, A.
  CHECK(one_setting(recommend(in, std::nullopt, 0.15))->choice == "B");
  const auto wide = one_setting(recommend(in, std::nullopt, 0.30));
  CHECK(wide->choice == "A");
  CHECK(wide->within_margin);
  // Over the budget at one point: no longer a setting for all of them.
  CHECK(one_setting(recommend(in, 3.9e6, 0.02))->choice == "A");
  // One point: no such line.
  in.entries.resize(3);
  CHECK_FALSE(one_setting(recommend(in, std::nullopt, 0.02)));
}

TEST_CASE("a faster result within the margin is not told apart; beyond it, it is the pick") {
  ReportInput in;
  in.entries = {entry("16K", 10, 1e6), entry("64K", 8.2, 4e6), entry("128K", 8, 9e6)};
  // 128K is 2.4% faster than 64K: within a 5% margin (a model whose median error is 5%).
  const Recommendation close = recommend(in, std::nullopt, decision_margin(0.05)).at(0);
  CHECK(close.best == &in.entries[1]);
  CHECK(close.fastest == &in.entries[2]);
  CHECK(close.text.find("The fastest, 128K, is 2.4% faster") != std::string::npos);
  // At the least margin, 2%, it is told apart and recommended.
  CHECK(decision_margin(0.01) == kLeastDecisionMargin);
  const Recommendation apart = recommend(in, std::nullopt, decision_margin(0.01)).at(0);
  CHECK(apart.best == &in.entries[2]);
  CHECK(apart.close.empty());
  CHECK(apart.text.find("The fastest,") == std::string::npos);
}

}  // namespace
}  // namespace exsim::report
