#include "plots/report.h"

#include <set>

#include <fmt/format.h>

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

std::string percent(double fraction) { return fmt::format("{:+.1f}%", 100 * fraction); }

// The results table's columns, shared by the HTML and the Markdown.
const std::vector<std::string> kColumns = {"#", "result", "wall", "vs baseline", "RPCs", "wire", "batch mean",
                                           "sender peak", "expected", "worst case"};

std::vector<std::string> row_of(std::size_t index, const Entry& e, const Entry& base) {
  return {fmt::format("#{}", index + 1), e.label,
          fmt::format("{:.3f} s", e.wall_s),
          base.wall_s > 0 ? percent(e.wall_s / base.wall_s - 1) : "",
          fmt::format("{:.0f}", e.rpcs),
          human_bytes(e.bytes_wire),
          human_bytes(e.batch_bytes_mean),
          human_bytes(e.sender_peak),
          human_bytes(e.sender_expected),
          human_bytes(e.sender_worst)};
}

std::string summary_text(const ReportInput& in) {
  std::set<std::string> scenarios;
  for (const auto& e : in.entries) scenarios.insert(e.scenario);
  std::string names;
  for (const auto& s : scenarios) names += (names.empty() ? "" : ", ") + s;
  const Entry& first = in.entries.front();
  return fmt::format("{} result(s) of scenario {} ({} hosts{}){}.", in.entries.size(), names, first.hosts.size(),
                     first.mt_dop >= 0 ? fmt::format(", MT_DOP {}", first.mt_dop) : "",
                     in.validations.empty() ? "" : fmt::format(", {} validated against measurement", in.validations.size()));
}

constexpr const char* kStyle = R"(
body { font-family: sans-serif; margin: 2em auto; max-width: 1100px; color: #222; }
h1 { font-size: 1.6em; } h2 { font-size: 1.2em; margin-top: 2em; border-bottom: 1px solid #ddd; }
table { border-collapse: collapse; font-size: 0.9em; } td, th { padding: 4px 10px; border-bottom: 1px solid #eee; }
td { text-align: right; white-space: nowrap; } td:nth-child(2), th:nth-child(2) { text-align: left; white-space: normal; }
.recommendation { background: #eef6ee; border-left: 4px solid #2e7d32; padding: 0.8em 1em; }
.figure svg { max-width: 100%; height: auto; } .note { color: #666; font-size: 0.9em; }
)";

}  // namespace

std::string human_bytes(double bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (bytes >= 1024 && u < 4) {
    bytes /= 1024;
    ++u;
  }
  return u == 0 ? fmt::format("{:.0f} B", bytes) : fmt::format("{:.3g} {}", bytes, units[u]);
}

Recommendation recommend(const ReportInput& in, std::optional<double> budget) {
  Recommendation r;
  r.baseline = &in.entries.front();
  for (const auto& e : in.entries) {
    if (!r.smallest || e.sender_worst < r.smallest->sender_worst) r.smallest = &e;
    if (budget && e.sender_worst > *budget) continue;
    if (!r.best || e.wall_s < r.best->wall_s) r.best = &e;
  }
  const std::string within = budget ? fmt::format(" within the {} budget", human_bytes(*budget)) : "";
  if (!r.best) {
    r.text = fmt::format("No result keeps its worst-case per-host sender memory{}; the smallest worst case is {} ({}).",
                         within, human_bytes(r.smallest->sender_worst), r.smallest->label);
  } else if (r.best == r.baseline) {
    r.text = fmt::format("The baseline, {}, is the fastest result{}: {:.3f} s, worst-case per-host sender memory {}.",
                         r.best->label, within, r.best->wall_s, human_bytes(r.best->sender_worst));
  } else {
    r.text = fmt::format("Recommended: {}, the fastest result{}: {:.3f} s, {:.1f}% faster than the baseline {} "
                         "({:.3f} s), with worst-case per-host sender memory {} (baseline {}).",
                         r.best->label, within, r.best->wall_s, 100 * (1 - r.best->wall_s / r.baseline->wall_s),
                         r.baseline->label, r.baseline->wall_s, human_bytes(r.best->sender_worst),
                         human_bytes(r.baseline->sender_worst));
  }
  if (!budget) r.text += " (No --memory-budget given: memory did not limit the choice.)";
  return r;
}

std::string render_html(const ReportInput& in, const std::vector<Figure>& figs, const std::vector<std::string>& svgs,
                        const ReportOptions& options) {
  const Entry& base = in.entries.front();
  std::string html = fmt::format("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                                 "<title>{}</title>\n<style>{}</style>\n</head>\n<body>\n<h1>{}</h1>\n",
                                 escape(options.title), kStyle, escape(options.title));
  html += fmt::format("<p>{}</p>\n", escape(summary_text(in)));
  html += "<p class=\"note\">From:";
  for (const auto& f : in.files) html += fmt::format(" {}", escape(f));
  html += "</p>\n";
  html += "<h2>Results</h2>\n<table id=\"results\">\n<tr>";
  for (const auto& c : kColumns) html += fmt::format("<th>{}</th>", escape(c));
  html += "</tr>\n";
  for (std::size_t i = 0; i < in.entries.size(); ++i) {
    html += "<tr>";
    for (const auto& cell : row_of(i, in.entries[i], base)) html += fmt::format("<td>{}</td>", escape(cell));
    html += "</tr>\n";
  }
  html += "</table>\n";
  if (!in.validations.empty()) {
    html += "<h2>Predicted against measured</h2>\n<table id=\"validation\">\n<tr><th>policy</th><th>predicted</th>"
            "<th>measured</th><th>wall error</th><th>RPCs error</th><th>bytes error</th><th>sender peak error</th></tr>\n";
    for (const auto& v : in.validations) {
      html += fmt::format("<tr><td>{}</td><td>{:.3f} s</td><td>{:.3f} s</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
                          escape(v.label), v.predicted_s, v.measured_s, percent(v.wall_error), percent(v.rpcs_error),
                          percent(v.bytes_error), percent(v.peak_error));
    }
    html += "</table>\n";
  }
  for (std::size_t i = 0; i < figs.size(); ++i) {
    if (svgs[i].empty()) continue;
    html += fmt::format("<h2>{}</h2>\n<div class=\"figure\" id=\"figure-{}\">\n{}\n</div>\n", escape(figs[i].title),
                        figs[i].name, svgs[i]);
  }
  html += fmt::format("<h2>Recommendation</h2>\n<div class=\"recommendation\" id=\"recommendation\">{}</div>\n",
                      escape(recommend(in, options.memory_budget).text));
  html += "<p class=\"note\">Made by exsim report. The figures' data: <code>exsim report --csv DIR</code>; their "
          "gnuplot scripts: <code>plots/</code>.</p>\n</body>\n</html>\n";
  return html;
}

std::string render_markdown(const ReportInput& in, const ReportOptions& options) {
  const Entry& base = in.entries.front();
  std::string md = fmt::format("## {}\n\n{}\n\n", options.title, summary_text(in));
  md += "|";
  for (const auto& c : kColumns) md += fmt::format(" {} |", c);
  md += "\n|";
  for (std::size_t i = 0; i < kColumns.size(); ++i) md += "---|";
  md += "\n";
  for (std::size_t i = 0; i < in.entries.size(); ++i) {
    md += "|";
    for (const auto& cell : row_of(i, in.entries[i], base)) md += fmt::format(" {} |", cell);
    md += "\n";
  }
  if (!in.validations.empty()) {
    md += "\n| policy | predicted | measured | wall error | RPCs error | bytes error | sender peak error |\n"
          "|---|---|---|---|---|---|---|\n";
    for (const auto& v : in.validations) {
      md += fmt::format("| {} | {:.3f} s | {:.3f} s | {} | {} | {} | {} |\n", v.label, v.predicted_s, v.measured_s,
                        percent(v.wall_error), percent(v.rpcs_error), percent(v.bytes_error), percent(v.peak_error));
    }
  }
  md += fmt::format("\n**{}**\n", recommend(in, options.memory_budget).text);
  return md;
}

}  // namespace exsim::report
