#include "plots/figures.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include <fmt/format.h>

#include "models/results/sensitivity.h"
#include "plots/label_layout.h"
#include "plots/rtt_figure.h"

namespace exsim::report {
namespace {

// Bar charts name results by their number in the report's table (labels of
// sweep points are too long for an axis); a bare number, as '#' starts a
// comment in gnuplot's data files.
std::string tick(std::size_t index) { return std::to_string(index + 1); }

// Wall-clock against flat buffer size: one column per series, where a series is
// everything about a result but its buffer: the scenario (when there are
// several), MT_DOP, RPCs in flight, the policy settings that differ among the
// results (compression, broadcast serialization...), other sweep settings,
// simulated or measured. Results that still meet at one buffer size are told
// apart by their policy, and the rest (the same result read twice) by a number.
// One table, a row per buffer size, a cell left empty where a series has no
// result: a CSV that pandas and spreadsheets read, and gnuplot draws a line
// across.
Figure wall_vs_buffer(const ReportInput& in) {
  Figure figure{"wall_vs_buffer", "Wall-clock against buffer size", ""};
  std::vector<const Entry*> flat;
  for (const auto& e : in.entries) {
    if (e.buffer_flat > 0) flat.push_back(&e);
  }
  // A config key varies unless every result has it, with one value.
  std::map<std::string, std::set<std::string>> values;
  std::map<std::string, std::size_t> having;
  for (const Entry* e : flat) {
    for (const auto& [key, value] : e->config) {
      values[key].insert(value);
      ++having[key];
    }
  }
  auto varies = [&](const std::string& key) { return values[key].size() > 1 || having[key] < flat.size(); };
  const bool scenarios = in.scenarios().size() > 1;
  auto series_of = [&](const Entry& e) {
    // No commas in a series name: it is a CSV column header.
    std::string name = scenarios ? e.scenario + "; " : "";
    name += fmt::format("MT_DOP {}; {} in flight", e.mt_dop < 0 ? 0 : e.mt_dop, e.in_flight);
    for (const auto& [key, value] : e.config) {
      if (varies(key)) name += fmt::format("; {} {}", key, value);
    }
    for (const auto& [key, value] : e.settings) {
      if (key.find("buffer") == std::string::npos && key != "mt_dop" && key.find("in_flight") == std::string::npos) {
        name += "; " + setting_in_words(key, value);
      }
    }
    if (e.source == "measured") name += " (measured)";
    return name;
  };
  std::vector<std::string> names;
  std::map<std::pair<std::string, long long>, int> at_buffer;
  for (const Entry* e : flat) {
    names.push_back(series_of(*e));
    ++at_buffer[{names.back(), e->buffer_flat}];
  }
  std::map<std::string, std::map<long long, double>> series;  // by name: wall-clock by buffer
  std::vector<std::string> order;
  for (std::size_t i = 0; i < flat.size(); ++i) {
    const Entry* e = flat[i];
    std::string name = names[i];
    if (at_buffer[{name, e->buffer_flat}] > 1) name += fmt::format("; policy {}", e->policy);
    const std::string base = name;
    for (int copy = 2; series[name].count(e->buffer_flat); ++copy) name = fmt::format("{} #{}", base, copy);
    if (std::find(order.begin(), order.end(), name) == order.end()) order.push_back(name);
    series[name][e->buffer_flat] = e->wall_s;
  }
  if (order.empty()) return figure;
  // What every series shares is said once, in the title, not in each line of
  // the key ("MT_DOP 4; 1 in flight; cross-group RTT 0.2 ms" fifteen times).
  const auto parts_of = [](const std::string& name) {
    std::vector<std::string> parts;
    for (std::size_t at = 0; at <= name.size();) {
      const std::size_t end = std::min(name.find("; ", at), name.size());
      parts.push_back(name.substr(at, end - at));
      at = end + 2;
    }
    return parts;
  };
  std::vector<std::string> shared = parts_of(order.front());
  for (const auto& name : order) {
    const auto parts = parts_of(name);
    std::erase_if(shared, [&](const std::string& p) { return std::find(parts.begin(), parts.end(), p) == parts.end(); });
  }
  std::map<std::string, std::string> shown;  // series -> its name in the key
  for (const auto& name : order) {
    std::string rest;
    for (const auto& p : parts_of(name)) {
      if (order.size() == 1 || std::find(shared.begin(), shared.end(), p) == shared.end()) rest += (rest.empty() ? "" : "; ") + p;
    }
    shown[name] = rest.empty() ? name : rest;
  }
  if (order.size() > 1 && !shared.empty()) {
    std::string common;
    for (const auto& p : shared) common += (common.empty() ? "" : ", ") + p;
    figure.title += " (" + common + ")";
  }
  std::set<long long> buffers;
  for (const auto& [name, points] : series) {
    for (const auto& [bytes, wall] : points) buffers.insert(bytes);
  }
  std::string csv = "buffer_bytes";
  for (const auto& name : order) {
    csv += ',';
    csv += csv_field(shown[name]);
  }
  csv += "\n";
  for (const long long bytes : buffers) {
    csv += std::to_string(bytes);
    for (const auto& name : order) {
      const auto& points = series[name];
      const auto at = points.find(bytes);
      csv += at == points.end() ? "," : fmt::format(",{:.6g}", at->second);
    }
    csv += "\n";
  }
  figure.csv = csv;
  // The key, a line a series beside the plot, sets the height past 20 series.
  constexpr double kHeight = 420, kKeyLine = 14;
  figure.variables = {{"height", std::max(kHeight, 80 + kKeyLine * static_cast<double>(order.size()))}};
  return figure;
}

// The wall-clock-against-memory plot's frame: its size, its margins (screen
// fractions from the bottom left, as gnuplot's `set lmargin at screen`) and
// its ranges, fixed here and given to its script, so that a label's pixels are
// known before gnuplot draws it. Memory on a log2 axis.
struct MemoryFrame {
  double width = 820, height = 440, left = 0.10, right = 0.76, bottom = 0.14, top = 0.90;
  double xmin = 1, xmax = 2, ymin = 0, ymax = 1;
  double px(double bytes) const {
    return width * (left + (std::log2(bytes) - std::log2(xmin)) / (std::log2(xmax) - std::log2(xmin)) * (right - left));
  }
  double py(double wall) const { return height * (1 - (bottom + (wall - ymin) / (ymax - ymin) * (top - bottom))); }
  double bytes_at(double x) const {
    return std::exp2(std::log2(xmin) + (x / width - left) / (right - left) * (std::log2(xmax) - std::log2(xmin)));
  }
  double wall_at(double y) const { return ymin + ((1 - y / height) - bottom) / (top - bottom) * (ymax - ymin); }
  Box area() const { return {width * left, height * (1 - top), width * right, height * (1 - bottom)}; }
};
constexpr double kLabelFont = 9, kMarkerRadius = 6;

// Wall-clock against worst-case per-host sender memory, a point per result
// (numbered as in the report's table), marked on the front when no result of
// its scenario and environment point is at least as fast with no more memory
// (and better in one), dominated otherwise: the choice a budget makes. Each
// point's label ("#3 64K", or "#3" where that finds no room) is placed clear of
// the others, the front's first; a point without one is named by the table.
Figure wall_vs_memory(const ReportInput& in, double budget) {
  Figure figure{"wall_vs_memory", "Wall-clock against sender memory: the choice a budget makes", ""};
  if (in.entries.empty()) return figure;
  std::vector<bool> dominated(in.entries.size(), false);
  for (const auto& point : environment_points(in.entries)) {
    for (const std::size_t i : point) {
      const Entry& e = in.entries[i];
      dominated[i] = std::any_of(point.begin(), point.end(), [&](std::size_t j) {
        const Entry& f = in.entries[j];
        return f.wall_s <= e.wall_s && f.sender_worst <= e.sender_worst &&
               (f.wall_s < e.wall_s || f.sender_worst < e.sender_worst);
      });
    }
  }
  // A memory of 0 (a hand-made file) sits at 1 KiB: the axis is logarithmic.
  const auto memory = [&](const Entry& e) { return std::max(e.sender_worst, 1024.0); };
  MemoryFrame frame;
  double least = INFINITY, most = budget, fastest = INFINITY, slowest = 0;
  for (const auto& e : in.entries) {
    least = std::min(least, memory(e));
    most = std::max(most, memory(e));
    fastest = std::min(fastest, e.wall_s);
    slowest = std::max(slowest, e.wall_s);
  }
  frame.xmin = std::exp2(std::floor(std::log2(least / 1.2)));
  frame.xmax = std::exp2(std::ceil(std::log2(most * 1.2)));
  // Around the results, not from zero: policies a few percent apart are the
  // question; room above the slowest for its label.
  const double pad = std::max(0.12 * (slowest - fastest), 0.01 * slowest);
  frame.ymin = std::max(0.0, fastest - pad);
  frame.ymax = slowest + 2 * pad;
  std::vector<std::size_t> order(in.entries.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return dominated[a] != dominated[b] ? !dominated[a] : in.entries[a].wall_s < in.entries[b].wall_s;
  });
  std::vector<LabelRequest> requests;
  for (const std::size_t i : order) {
    const Entry& e = in.entries[i];
    requests.push_back({frame.px(memory(e)), frame.py(e.wall_s), fmt::format("#{} {}", i + 1, e.policy),
                        fmt::format("#{}", i + 1)});
  }
  const std::vector<PlacedLabel> placed = place_labels(requests, frame.area(), kLabelFont, kMarkerRadius);
  std::vector<const PlacedLabel*> label_of(in.entries.size());
  for (std::size_t k = 0; k < order.size(); ++k) label_of[order[k]] = &placed[k];
  std::string csv = "result,sender_worst_bytes,wall_s,on_front,label_bytes,label_wall_s,label\n";
  for (std::size_t i = 0; i < in.entries.size(); ++i) {
    const Entry& e = in.entries[i];
    const PlacedLabel& l = *label_of[i];
    csv += fmt::format("{},{:.0f},{:.6g},{},", csv_field(fmt::format("#{} {}", i + 1, e.policy)), memory(e), e.wall_s,
                       dominated[i] ? 0 : 1);
    csv += l.placed ? fmt::format("{:.6g},{:.6g},{}\n", frame.bytes_at(l.x), frame.wall_at(l.y), csv_field(l.text))
                    : ",,\n";
  }
  figure.csv = csv;
  figure.variables = {{"budget", budget},          {"width", frame.width},   {"height", frame.height},
                      {"lm", frame.left},          {"rm", frame.right},      {"bm", frame.bottom},
                      {"tm", frame.top},           {"xmin", frame.xmin},     {"xmax", frame.xmax},
                      {"ymin", frame.ymin},        {"ymax", frame.ymax}};
  return figure;
}

std::string sender_memory(const ReportInput& in) {
  std::string csv = "result,observed peak,expected,worst case\n";
  for (std::size_t i = 0; i < in.entries.size(); ++i) {
    const Entry& e = in.entries[i];
    csv += fmt::format("{},{:.0f},{:.0f},{:.0f}\n", tick(i), e.sender_peak, e.sender_expected, e.sender_worst);
  }
  return csv;
}

std::string rpcs(const ReportInput& in) {
  std::string csv = "result,rpcs\n";
  for (std::size_t i = 0; i < in.entries.size(); ++i) csv += fmt::format("{},{:.0f}\n", tick(i), in.entries[i].rpcs);
  return csv;
}

std::string cpu_by_stage(const ReportInput& in) {
  std::vector<std::string> stages;
  for (const auto& e : in.entries) {
    for (const auto& [stage, s] : e.cpu_s) {
      if (std::find(stages.begin(), stages.end(), stage) == stages.end()) stages.push_back(stage);
    }
  }
  if (stages.empty()) return "";
  std::string csv = "result";
  for (const auto& s : stages) csv += fmt::format(",{}", s);
  csv += "\n";
  for (std::size_t i = 0; i < in.entries.size(); ++i) {
    const Entry& e = in.entries[i];
    csv += tick(i);
    for (const auto& stage : stages) {
      auto it = std::find_if(e.cpu_s.begin(), e.cpu_s.end(), [&](const auto& p) { return p.first == stage; });
      csv += fmt::format(",{:.6g}", it == e.cpu_s.end() ? 0.0 : it->second);
    }
    csv += "\n";
  }
  return csv;
}

// How often a bar chart names a result under its bar: every one while the
// numbers fit side by side, else every k-th (135 results: "1112131415").
double tick_every(std::size_t results) {
  constexpr double kPlotWidth = 500, kTickFont = 11, kGap = 8;
  const double width = text_width(std::to_string(results), kTickFont) + kGap;
  return std::max(1.0, std::ceil(static_cast<double>(results) * width / kPlotWidth));
}

std::string predicted_vs_measured(const ReportInput& in) {
  if (in.validations.empty()) return "";
  std::string csv = "policy,measured_s,predicted_s\n";
  for (const auto& v : in.validations) csv += fmt::format("{},{:.6g},{:.6g}\n", csv_field(v.label), v.measured_s, v.predicted_s);
  return csv;
}

}  // namespace

std::string csv_field(const std::string& text) {
  if (text.find_first_of(" ,\"") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char c : text) quoted += c == '"' ? '\'' : c;
  return quoted + "\"";
}

// Each cost alone at both ends of its range (simulate --sensitivity), for the
// first scenario whose results carry it: a row per cost (the dozen that move
// the fastest policy most, then every cost at once), a bar per policy from its
// wall-clock at the cost's cheap end to its dear end, and the simulated one.
std::string sensitivity(const ReportInput& in) {
  std::vector<const Entry*> shown;
  for (const auto& e : in.entries) {
    if (e.source != "simulated" || e.sensitivity.empty()) continue;
    if (!shown.empty() && (e.scenario != shown.front()->scenario || e.settings != shown.front()->settings)) continue;
    if (shown.size() < 6) shown.push_back(&e);
  }
  if (shown.empty()) return "";
  const Entry* fastest = *std::min_element(shown.begin(), shown.end(),
                                           [](const Entry* a, const Entry* b) { return a->wall_s < b->wall_s; });
  std::vector<std::size_t> order = costs_by_swing(fastest->sensitivity);
  if (order.size() > 12) order.resize(12);
  // A row per cost; per policy three columns: its wall-clock at the cost's
  // cheap end (headed by the policy's name, the plot's key), its dear end, and
  // as simulated.
  std::string csv = "row,cost";
  for (const Entry* e : shown) csv += fmt::format(",{},{} dear,{} simulated", csv_field(e->policy), e->policy, e->policy);
  csv += "\n";
  const std::size_t rows = order.size() + (fastest->wall_cheap_s >= 0 ? 1 : 0);
  // The largest swing at the top: rows counted from the bottom.
  for (std::size_t k = 0; k < order.size(); ++k) {
    const std::size_t c = order[k];
    csv += fmt::format("{},{}", rows - 1 - k, csv_field(fastest->sensitivity[c].cost));
    for (const Entry* e : shown) {
      const bool has = c < e->sensitivity.size();
      csv += fmt::format(",{:.6g},{:.6g},{:.6g}", has ? e->sensitivity[c].wall_cheap_s : e->wall_s,
                         has ? e->sensitivity[c].wall_dear_s : e->wall_s, e->wall_s);
    }
    csv += "\n";
  }
  if (rows > order.size()) {
    csv += "0,every cost";
    for (const Entry* e : shown) csv += fmt::format(",{:.6g},{:.6g},{:.6g}", e->wall_cheap_s, e->wall_dear_s, e->wall_s);
    csv += "\n";
  }
  return csv;
}

std::vector<Figure> figures(const ReportInput& in, double budget) {
  return {wall_vs_memory(in, budget),
          rtt_figure(in),
          wall_vs_buffer(in),
          {"sender_memory", "Per-host sender memory against the budget", sender_memory(in),
           {{"budget", budget}, {"tick_every", tick_every(in.entries.size())}}},
          {"rpcs", "TransmitData RPCs", rpcs(in), {{"tick_every", tick_every(in.entries.size())}}},
          {"cpu_by_stage", "CPU time by stage", cpu_by_stage(in), {{"tick_every", tick_every(in.entries.size())}}},
          {"predicted_vs_measured", "Predicted against measured", predicted_vs_measured(in)},
          {"sensitivity", "What could change this answer: each cost alone over its range", sensitivity(in)}};
}

}  // namespace exsim::report
