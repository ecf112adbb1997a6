// The report at production scale reads: 20 hosts in 4 placement groups and a
// sweep of 45 environment points (MT_DOP 0/4/8 by 15 cross-group RTTs) of 3
// policies each. Every figure is drawn by gnuplot as the report draws it, and
// in each SVG no text's box covers another's, nor a point's marker on the
// choice plot; the results table fits the page's width. Boxes come from the
// SVG's own coordinates and a sans face's widths (plots/label_layout.h).
#include <doctest/doctest.h>

#include <cmath>
#include <regex>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "models/base/text_units.h"
#include "plots/figures.h"
#include "plots/gnuplot.h"
#include "plots/label_layout.h"
#include "plots/report.h"

namespace exsim::report {
namespace {

constexpr double kBudget = 1024.0 * 1024 * 1024;

ReportInput production_sweep() {
  ReportInput in;
  std::vector<std::string> hosts, groups;
  for (int h = 0; h < 20; ++h) {
    hosts.push_back(fmt::format("h{}", h));
    groups.push_back(std::string(1, static_cast<char>('a' + h / 5)));
  }
  const std::vector<std::pair<std::string, double>> policies = {{"16K", 24e6}, {"64K", 86e6}, {"budget-16M-in-flight-2", 128e6}};
  int point = 0;
  for (const int mt_dop : {0, 4, 8}) {
    for (int r = 0; r < 15; ++r, ++point) {
      const double cross = 0.2 + 0.1 * r;
      std::vector<std::vector<double>> rtt(20, std::vector<double>(20));
      for (int a = 0; a < 20; ++a) {
        for (int b = 0; b < 20; ++b) rtt[a][b] = a == b ? 0.02 : groups[a] == groups[b] ? 0.08 + 0.002 * (a + b) : cross;
      }
      for (std::size_t p = 0; p < policies.size(); ++p) {
        Entry e;
        e.scenario = "production-20-hosts";
        e.policy = policies[p].first;
        e.source = "simulated";
        e.settings = {{"mt_dop", std::to_string(mt_dop)}, {"cluster.rtt_ms.cross_group", fmt::format("{:.1f}", cross)}};
        e.sweep_point = point;
        e.label = e.policy;
        e.mt_dop = mt_dop;
        e.in_flight = p == 2 ? 2 : 1;
        e.buffer_flat = p == 2 ? 0 : (p == 0 ? 16384 : 65536);
        // Slower with the RTT, less so with larger buffers; memory by MT_DOP.
        e.wall_s = (0.6 + 0.2 * mt_dop / 4.0) * (1 + cross * (0.3 - 0.1 * static_cast<double>(p)));
        e.rpcs = 5e5 / (1.0 + static_cast<double>(p));
        e.bytes_wire = 4.3e10;
        e.batch_bytes_mean = 150e3;
        e.sender_peak = e.sender_expected = e.sender_worst = policies[p].second * (1 + mt_dop / 4.0);
        e.bound = "round trips 59%, sender CPU 31%, producer 12%";
        e.cpu_s = {{"serialize", 10}, {"compress", 12}, {"send", 4}, {"consume", 20}};
        e.hosts = hosts;
        e.host_groups = groups;
        e.rtt_nominal_ms = rtt;
        in.entries.push_back(e);
      }
    }
  }
  return in;
}

struct Text {
  std::string text;
  Box box;
};

// Every unrotated text of a gnuplot SVG, with its box.
std::vector<Text> texts_of(const std::string& svg) {
  static const std::regex kText(
      R"re(<g transform="translate\(([-\d.]+),([-\d.]+)\)"[^>]*font-size="([\d.]+)"[^>]*>\s*<text>([^<]*)</text>)re");
  std::vector<Text> texts;
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), kText); it != std::sregex_iterator(); ++it) {
    const std::smatch& m = *it;
    const std::string head = m.str(0).substr(0, m.str(0).find('>'));
    const std::string anchor = head.find("text-anchor=\"middle\"") != std::string::npos ? "middle"
                               : head.find("text-anchor=\"end\"") != std::string::npos  ? "end"
                                                                                        : "start";
    std::string text = m.str(4);
    text.erase(0, text.find_first_not_of(' '));
    if (text.empty()) continue;
    texts.push_back({text, text_box(text, std::stod(m.str(1)), std::stod(m.str(2)), std::stod(m.str(3)), anchor)});
  }
  return texts;
}

// The markers a choice plot draws: a box each.
std::vector<Box> markers_of(const std::string& svg) {
  static const std::regex kUse(R"re(<use xlink:href='#[^']*gpPt[67]' transform='translate\(([\d.]+),([\d.]+)\) scale\(([\d.]+)\)')re");
  std::vector<Box> boxes;
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), kUse); it != std::sregex_iterator(); ++it) {
    const double x = std::stod((*it)[1]), y = std::stod((*it)[2]), r = std::stod((*it)[3]);
    boxes.push_back({x - r, y - r, x + r, y + r});
  }
  return boxes;
}

TEST_CASE("at 20 hosts and 45 sweep points no text of a figure covers another, nor a point") {
  const ReportInput in = production_sweep();
  const std::vector<Figure> figs = figures(in, kBudget);
  int drawn = 0;
  for (const Figure& f : figs) {
    if (f.csv.empty()) continue;
    CAPTURE(f.name);
    // Past ten hosts the RTTs are drawn by placement group, not host by host.
    CHECK(f.name != "rtt_heatmap");
    const std::string svg = render_svg(f.name, f.csv, f.variables);
    const std::vector<Text> texts = texts_of(svg);
    CHECK(texts.size() >= 4);  // a title, axes' ticks: the parser reads the SVG
    for (std::size_t a = 0; a < texts.size(); ++a) {
      for (std::size_t b = a + 1; b < texts.size(); ++b) {
        CAPTURE(texts[a].text);
        CAPTURE(texts[b].text);
        CHECK_FALSE(texts[a].box.overlaps(texts[b].box, 1));
      }
    }
    if (f.name == "wall_vs_memory") {
      const std::vector<Box> markers = markers_of(svg);
      CHECK(markers.size() >= in.entries.size());  // and the key's
      int labels = 0;
      for (const Text& t : texts) {
        if (t.text.front() != '#') continue;
        ++labels;
        for (const Box& m : markers) {
          CAPTURE(t.text);
          CHECK_FALSE(t.box.overlaps(m, 1));
        }
      }
      CHECK(labels >= 10);  // the front's points at least are named
    }
    ++drawn;
  }
  CHECK(drawn >= 6);
}

TEST_CASE("at 45 sweep points the results table fits the page, its settings in columns of their own") {
  const ReportInput in = production_sweep();
  const std::string html = render_html(in, {}, {}, ReportOptions{});
  const auto start = html.find("<table id=\"results\">");
  REQUIRE(start != std::string::npos);
  const std::string table = html.substr(start, html.find("</table>", start) - start);
  CHECK(table.find("<th>MT_DOP</th><th>cross-group RTT</th><th class=\"text\">result</th>") != std::string::npos);
  // The widest cell of each column, at the table's 0.9 em of 16 px, with its
  // padding each side; a header or a text column wraps at its spaces, so its
  // widest word counts. The page's body is at most 1100 px wide.
  constexpr double kPadding = 6;
  static const std::regex kCell(R"re(<t([dh])( class="text")?>((?:[^<]|<wbr>)*)</t[dh]>)re");
  std::vector<double> widths;
  for (std::size_t row = table.find("<tr>"); row != std::string::npos; row = table.find("<tr>", row + 1)) {
    const std::string cells = table.substr(row, table.find("</tr>", row) - row);
    std::size_t column = 0;
    for (auto it = std::sregex_iterator(cells.begin(), cells.end(), kCell); it != std::sregex_iterator(); ++it, ++column) {
      std::string text = std::regex_replace((*it)[3].str(), std::regex("<wbr>"), " ");
      if ((*it)[2].matched || (*it)[1] == "h") {  // headers wrap too, and a text column at <wbr> too
        std::string widest, word;
        for (char c : text + ' ') {
          if (c == ' ') {
            if (word.size() > widest.size()) widest = word;
            word.clear();
          } else {
            word += c;
          }
        }
        text = widest;
      }
      if (widths.size() <= column) widths.resize(column + 1, 0);
      widths[column] = std::max(widths[column], text_width(text, 0.9 * 16) + 2 * kPadding);
    }
  }
  double total = 0;
  for (double w : widths) total += w;
  CAPTURE(total);
  CHECK(widths.size() == 13);
  CHECK(total <= 1100);
}

}  // namespace
}  // namespace exsim::report
