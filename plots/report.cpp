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



// The settings of an environment point a sweep varied (MT_DOP, RTTs...), in
// their first order: each a column of the tables, so that a result's label is
// its policy alone, not a sentence wrapped over five lines.
std::vector<std::string> environment_keys(const std::vector<Entry>& entries) {
  std::vector<std::string> keys;
  for (const auto& e : entries) {
    for (const auto& [key, value] : e.settings) {
      if (!is_policy_setting(key) && std::find(keys.begin(), keys.end(), key) == keys.end()) keys.push_back(key);
    }
  }
  return keys;
}

std::vector<std::string> environment_headers(const std::vector<std::string>& keys) {
  std::vector<std::string> headers;
  for (const auto& key : keys) headers.push_back(setting_as_column(key, "").first);
  return headers;
}

std::vector<std::string> environment_cells(const Entry& e, const std::vector<std::string>& keys) {
  std::vector<std::string> cells;
  for (const auto& key : keys) {
    const auto at = std::find_if(e.settings.begin(), e.settings.end(), [&](const auto& s) { return s.first == key; });
    cells.push_back(at == e.settings.end() ? "" : setting_as_column(key, at->second).second);
  }
  return cells;
}

// The results table's columns, shared by the HTML and the Markdown: the
// number, the point's settings, the policy, its figures.
std::vector<std::string> result_columns(const std::vector<std::string>& keys) {
  std::vector<std::string> columns = {"#"};
  for (const auto& h : environment_headers(keys)) columns.push_back(h);
  for (const char* c : {"result", "wall", "vs baseline", "RPCs", "wire", "batch mean", "sender peak", "expected",
                        "worst case", "bound by"}) {
    columns.emplace_back(c);
  }
  return columns;
}

std::vector<std::string> row_of(std::size_t index, const Entry& e, const Entry& base, const std::vector<std::string>& keys,
                                bool with_scenario) {
  // With the costs' range when simulated at its ends (simulate --range).
  const std::string range = e.wall_cheap_s >= 0 && e.wall_dear_s >= 0
                                ? fmt::format(" ({}-{})", format_seconds(e.wall_cheap_s), format_seconds(e.wall_dear_s))
                                : "";
  std::vector<std::string> row = {fmt::format("#{}", index + 1)};
  for (auto& cell : environment_cells(e, keys)) row.push_back(std::move(cell));
  for (auto cell : {policy_label(e, with_scenario), format_seconds(e.wall_s) + range,
                    base.wall_s > 0 ? format_signed_percent(e.wall_s / base.wall_s - 1) : "",
                    fmt::format("{:.0f}", e.rpcs), human_bytes(e.bytes_wire), human_bytes(e.batch_bytes_mean),
                    human_bytes(e.sender_peak), human_bytes(e.sender_expected), human_bytes(e.sender_worst),
                    e.bound.empty() ? "-" : e.bound}) {
    row.push_back(std::move(cell));
  }
  return row;
}

// Past this many environment points, each point's pick is a row of a table,
// its full sentence folded away below it.
constexpr std::size_t kPointsInWords = 3;

std::vector<std::string> pick_columns(const std::vector<std::string>& keys, bool with_scenario) {
  std::vector<std::string> columns;
  if (with_scenario) columns.emplace_back("scenario");
  for (const auto& h : environment_headers(keys)) columns.push_back(h);
  for (const char* c : {"pick", "wall", "vs baseline", "worst case", "the fastest"}) columns.emplace_back(c);
  return columns;
}

std::vector<std::string> pick_row(const Recommendation& r, const std::vector<std::string>& keys, bool with_scenario) {
  std::vector<std::string> row;
  if (with_scenario) row.push_back(r.scenario);
  for (auto& cell : environment_cells(*r.baseline, keys)) row.push_back(std::move(cell));
  if (!r.best) {
    for (auto cell : {std::string("none fits"), std::string(), std::string(),
                      "smallest: " + human_bytes(r.smallest->sender_worst), std::string()}) {
      row.push_back(std::move(cell));
    }
    return row;
  }
  const std::string fastest =
      r.fastest == r.best ? "the pick"
                          : fmt::format("{}, {} with {}", policy_label(*r.fastest, false),
                                        format_signed_percent(r.fastest->wall_s / r.best->wall_s - 1),
                                        human_bytes(r.fastest->sender_worst));
  for (auto cell : {policy_label(*r.best, false), format_seconds(r.best->wall_s),
                    r.baseline->wall_s > 0 ? format_signed_percent(r.best->wall_s / r.baseline->wall_s - 1) : "",
                    human_bytes(r.best->sender_worst), fastest}) {
    row.push_back(std::move(cell));
  }
  return row;
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
table { border-collapse: collapse; font-size: 0.9em; } td, th { padding: 4px 6px; border-bottom: 1px solid #eee; }
td { text-align: right; white-space: nowrap; } td.text, th.text { text-align: left; white-space: normal; }
details { margin-top: 0.6em; } summary { cursor: pointer; color: #444; }
.recommendation { background: #eef6ee; border-left: 4px solid #2e7d32; padding: 0.8em 1em; }
.figure svg { max-width: 100%; height: auto; } .note { color: #666; font-size: 0.9em; }
.warning { background: #fff4e5; border-left: 4px solid #e65100; padding: 0.5em 1em; }
)";

// An HTML table; the columns named in `text` are left-aligned and wrap.
std::string html_table(const std::string& id, const std::vector<std::string>& columns,
                       const std::vector<std::vector<std::string>>& rows, const std::set<std::string>& text) {
  std::string html = fmt::format("<table id=\"{}\">\n<tr>", id);
  for (const auto& c : columns) html += fmt::format("<th{}>{}</th>", text.count(c) ? " class=\"text\"" : "", escape(c));
  html += "</tr>\n";
  for (const auto& row : rows) {
    html += "<tr>";
    for (std::size_t c = 0; c < row.size(); ++c) {
      // A text column may also break a name after its hyphens ("budget-16M-<wbr>in-flight-2").
      std::string cell = escape(row[c]);
      if (text.count(columns[c])) {
        for (std::size_t at = cell.find('-'); at != std::string::npos; at = cell.find('-', at + 6)) cell.insert(at + 1, "<wbr>");
      }
      html += fmt::format("<td{}>{}</td>", text.count(columns[c]) ? " class=\"text\"" : "", cell);
    }
    html += "</tr>\n";
  }
  return html + "</table>\n";
}

// The recommendation: its sentence, or one per point; past a few points, the
// setting for all of them, each point's pick as a row, the sentences folded.
std::string recommendation_html(const std::vector<Recommendation>& recommendations,
                                const std::vector<std::string>& keys, bool with_scenario) {
  const auto lines = recommendation_lines(recommendations);
  if (lines.size() == 1) return escape(lines.front());
  std::string list = "<ul>";
  for (const auto& line : lines) list += fmt::format("<li>{}</li>", escape(line));
  list += "</ul>";
  if (recommendations.size() <= kPointsInWords) return list;
  std::string html;
  for (const auto& line : {one_setting_line(recommendations), unbounded_note(recommendations)}) {
    if (line) html += fmt::format("<p>{}</p>", escape(*line));
  }
  std::vector<std::vector<std::string>> rows;
  for (const auto& r : recommendations) rows.push_back(pick_row(r, keys, with_scenario));
  html += html_table("picks", pick_columns(keys, with_scenario), rows, {"pick", "the fastest"});
  return html + "<details><summary>Each point's recommendation in full</summary>" + list + "</details>";
}

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
  const auto recommendations = recommend(in, options.memory_budget, options.margin);
  html += "<h2>Recommendation</h2>\n<div class=\"recommendation\" id=\"recommendation\">";
  html += recommendation_html(recommendations, environment_keys(in.entries), in.scenarios().size() > 1);
  html += "</div>\n";
  for (const auto& w : in.warnings) html += fmt::format("<p class=\"warning\">Warning: {}.</p>\n", escape(w));
  for (const auto& line : verdict_lines(in)) html += fmt::format("<p class=\"verdict\">{}</p>\n", escape(line));
  html += "<p class=\"note\">From:";
  for (const auto& f : in.files) html += fmt::format(" {}", escape(f));
  html += "</p>\n";
  const auto keys = environment_keys(in.entries);
  const auto columns = result_columns(keys);
  std::vector<std::vector<std::string>> rows;
  const auto baselines = in.baselines();
  for (std::size_t i = 0; i < in.entries.size(); ++i) {
    rows.push_back(row_of(i, in.entries[i], in.entries[baselines[i]], keys, in.scenarios().size() > 1));
  }
  html += "<h2>Results</h2>\n" + html_table("results", columns, rows, {"result", "bound by"});
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
  const auto recommendations = recommend(in, options.memory_budget, options.margin);
  const auto keys = environment_keys(in.entries);
  const bool with_scenario = in.scenarios().size() > 1;
  const auto lines = recommendation_lines(recommendations);
  if (recommendations.size() > kPointsInWords) {
    // The sentences of every point would bury the answer: the setting for all
    // of them, each point's pick as a row, the sentences folded below.
    for (const auto& line : {one_setting_line(recommendations), unbounded_note(recommendations)}) {
      if (line) md += fmt::format("**{}**\n\n", escape_markdown(*line));
    }
    Table picks(pick_columns(keys, with_scenario));
    for (const auto& r : recommendations) picks.add_row(pick_row(r, keys, with_scenario));
    md += picks.render_markdown() + "\n<details><summary>Each point's recommendation in full</summary>\n\n";
    for (const auto& line : lines) md += fmt::format("- {}\n", escape_markdown(line));
    md += "\n</details>\n";
  } else {
    for (const auto& line : lines) md += fmt::format("{}**{}**\n", lines.size() > 1 ? "- " : "", escape_markdown(line));
  }
  md += "\n";
  for (const auto& w : in.warnings) md += fmt::format("Warning: {}.\n\n", escape_markdown(w));
  for (const auto& line : verdict_lines(in)) md += escape_markdown(line) + "\n\n";
  Table results(result_columns(keys));
  const auto baselines = in.baselines();
  for (std::size_t i = 0; i < in.entries.size(); ++i) {
    results.add_row(row_of(i, in.entries[i], in.entries[baselines[i]], keys, with_scenario));
  }
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
