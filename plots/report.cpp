#include "plots/report.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "models/base/size.h"
#include "models/base/text_table.h"
#include "models/base/text_units.h"

namespace exsim::report {
namespace {

std::string escape(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}



// The results table's columns, shared by the HTML and the Markdown.
const std::vector<std::string> kColumns = {"#", "result", "wall", "vs baseline", "RPCs", "wire", "batch mean",
                                           "sender peak", "expected", "worst case", "bound by"};

std::vector<std::string> row_of(std::size_t index, const Entry& e, const Entry& base) {
  // With the costs' range when simulated at its ends (simulate --range).
  const std::string range = e.wall_cheap_s >= 0 && e.wall_dear_s >= 0
                                ? fmt::format(" ({}-{})", format_seconds(e.wall_cheap_s), format_seconds(e.wall_dear_s))
                                : "";
  return {fmt::format("#{}", index + 1), e.label,
          format_seconds(e.wall_s) + range,
          base.wall_s > 0 ? format_signed_percent(e.wall_s / base.wall_s - 1) : "",
          fmt::format("{:.0f}", e.rpcs),
          human_bytes(e.bytes_wire),
          human_bytes(e.batch_bytes_mean),
          human_bytes(e.sender_peak),
          human_bytes(e.sender_expected),
          human_bytes(e.sender_worst),
          e.bound.empty() ? "-" : e.bound};
}

// "5" or "0, 4": the distinct values, in order.
std::string values_of(const std::set<int>& values) {
  std::string text;
  for (int v : values) text += (text.empty() ? "" : ", ") + std::to_string(v);
  return text;
}

std::string summary_text(const ReportInput& in) {
  const std::vector<std::string> scenarios = in.scenarios();
  std::string names;
  for (const auto& s : scenarios) names += (names.empty() ? "" : ", ") + s;
  std::set<int> hosts, mt_dops;
  for (const auto& e : in.entries) {
    hosts.insert(static_cast<int>(e.hosts.size()));
    if (e.mt_dop >= 0) mt_dops.insert(e.mt_dop);
  }
  return fmt::format("{} result(s) of scenario{} {} ({} hosts{}){}.", in.entries.size(),
                     scenarios.size() > 1 ? "s" : "", names, values_of(hosts),
                     mt_dops.empty() ? "" : fmt::format(", MT_DOP {}", values_of(mt_dops)),
                     in.validations.empty() ? "" : fmt::format(", {} validated against measurement", in.validations.size()));
}

constexpr const char* kStyle = R"(
body { font-family: sans-serif; margin: 2em auto; max-width: 1100px; color: #222; }
h1 { font-size: 1.6em; } h2 { font-size: 1.2em; margin-top: 2em; border-bottom: 1px solid #ddd; }
table { border-collapse: collapse; font-size: 0.9em; } td, th { padding: 4px 10px; border-bottom: 1px solid #eee; }
td { text-align: right; white-space: nowrap; } td:nth-child(2), th:nth-child(2) { text-align: left; white-space: normal; }
.recommendation { background: #eef6ee; border-left: 4px solid #2e7d32; padding: 0.8em 1em; }
.figure svg { max-width: 100%; height: auto; } .note { color: #666; font-size: 0.9em; }
.warning { background: #fff4e5; border-left: 4px solid #e65100; padding: 0.5em 1em; }
)";

}  // namespace

static std::vector<std::string> verdict_lines(const ReportInput& in) {
  std::vector<std::string> lines;
  for (const auto& v : in.verdicts) {
    std::string line = fmt::format("Validation ({}): {}. Median wall-clock error {:.1f}% (threshold {:.0f}%), largest "
                                   "{:.1f}% (threshold {:.0f}%).",
                                   v.file, v.outcome, 100 * v.wall_median_error, 100 * v.wall_median_threshold,
                                   100 * v.wall_max_error, 100 * v.wall_max_threshold);
    for (const auto& reason : v.reasons) line += " " + reason + (reason.empty() || reason.back() == '.' ? "" : ".");
    lines.push_back(std::move(line));
  }
  return lines;
}

std::string render_html(const ReportInput& in, const std::vector<Figure>& figs, const std::vector<std::string>& svgs,
                        const ReportOptions& options) {
  std::string html = fmt::format("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                                 "<title>{}</title>\n<style>{}</style>\n</head>\n<body>\n<h1>{}</h1>\n",
                                 escape(options.title), kStyle, escape(options.title));
  html += fmt::format("<p>{}</p>\n", escape(summary_text(in)));
  // What the reader came for first: the recommendation, and how far the model was trusted.
  const auto lines = recommendation_lines(recommend(in, options.memory_budget, options.margin));
  std::string said = lines.size() == 1 ? escape(lines.front()) : "<ul>";
  if (lines.size() > 1) {
    for (const auto& line : lines) said += fmt::format("<li>{}</li>", escape(line));
    said += "</ul>";
  }
  html += fmt::format("<h2>Recommendation</h2>\n<div class=\"recommendation\" id=\"recommendation\">{}</div>\n", said);
  for (const auto& w : in.warnings) html += fmt::format("<p class=\"warning\">Warning: {}.</p>\n", escape(w));
  for (const auto& line : verdict_lines(in)) html += fmt::format("<p class=\"verdict\">{}</p>\n", escape(line));
  html += "<p class=\"note\">From:";
  for (const auto& f : in.files) html += fmt::format(" {}", escape(f));
  html += "</p>\n";
  html += "<h2>Results</h2>\n<table id=\"results\">\n<tr>";
  for (const auto& c : kColumns) html += fmt::format("<th>{}</th>", escape(c));
  html += "</tr>\n";
  const auto baselines = in.baselines();
  for (std::size_t i = 0; i < in.entries.size(); ++i) {
    html += "<tr>";
    for (const auto& cell : row_of(i, in.entries[i], in.entries[baselines[i]])) {
      html += fmt::format("<td>{}</td>", escape(cell));
    }
    html += "</tr>\n";
  }
  html += "</table>\n";
  if (!in.validations.empty()) {
    html +=
        "<h2>Predicted against measured</h2>\n<table id=\"validation\">\n<tr><th>policy</th><th>predicted</th>"
        "<th>measured</th><th>wall error</th><th>RPCs error</th><th>bytes error</th><th>sender peak error</th></tr>\n";
    for (const auto& v : in.validations) {
      html += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
                          escape(v.label), format_seconds(v.predicted_s), format_seconds(v.measured_s),
                          format_signed_percent(v.wall_error), format_signed_percent(v.rpcs_error),
                          format_signed_percent(v.bytes_error), format_signed_percent(v.peak_error));
    }
    html += "</table>\n";
  }
  for (std::size_t i = 0; i < figs.size(); ++i) {
    if (svgs[i].empty()) continue;
    html += fmt::format("<h2>{}</h2>\n<div class=\"figure\" id=\"figure-{}\">\n{}\n</div>\n", escape(figs[i].title),
                        figs[i].name, svgs[i]);
  }
  html += "<p class=\"note\">Made by exsim report. The figures' data: <code>exsim report --csv DIR</code>; their "
          "gnuplot scripts: <code>plots/</code>.</p>\n</body>\n</html>\n";
  return html;
}

std::string render_markdown(const ReportInput& in, const ReportOptions& options) {
  std::string md = fmt::format("## {}\n\n{}\n\n", escape_markdown(options.title), escape_markdown(summary_text(in)));
  const auto lines = recommendation_lines(recommend(in, options.memory_budget, options.margin));
  for (const auto& line : lines) md += fmt::format("{}**{}**\n", lines.size() > 1 ? "- " : "", escape_markdown(line));
  md += "\n";
  for (const auto& w : in.warnings) md += fmt::format("Warning: {}.\n\n", escape_markdown(w));
  for (const auto& line : verdict_lines(in)) md += escape_markdown(line) + "\n\n";
  Table results(kColumns);
  const auto baselines = in.baselines();
  for (std::size_t i = 0; i < in.entries.size(); ++i) results.add_row(row_of(i, in.entries[i], in.entries[baselines[i]]));
  md += results.render_markdown();
  if (!in.validations.empty()) {
    Table validations(
        {"policy", "predicted", "measured", "wall error", "RPCs error", "bytes error", "sender peak error"});
    for (const auto& v : in.validations) {
      validations.add_row({v.label, format_seconds(v.predicted_s), format_seconds(v.measured_s),
                           format_signed_percent(v.wall_error), format_signed_percent(v.rpcs_error),
                           format_signed_percent(v.bytes_error), format_signed_percent(v.peak_error)});
    }
    md += '\n';
    md += validations.render_markdown();
  }
  return md;
}

}  // namespace exsim::report
