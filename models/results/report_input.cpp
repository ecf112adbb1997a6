#include "models/results/report_input.h"

#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "models/base/error.h"
#include "models/base/json_reader.h"
#include "models/results/bound.h"
#include "models/results/results_reader.h"

namespace exsim::report {
namespace {

using json = nlohmann::ordered_json;

std::string text_of(const json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

// "64K (MT_DOP 8, 2 in flight) (measured)": the policy, its settings, its source.
std::string relabel(const Entry& e) {
  std::string label = e.policy;
  for (std::size_t i = 0; i < e.settings.size(); ++i) {
    label += fmt::format("{}{}", i == 0 ? " (" : ", ", setting_in_words(e.settings[i].first, e.settings[i].second));
  }
  if (!e.settings.empty()) label += ")";
  return e.source == "measured" ? label + " (measured)" : label;
}

// One results object (the spec's results format) at `node`, checked as a
// scenario is: each wrong or missing value recorded with its JSON pointer and
// what was expected (a figure read as 0 had made a policy look free of memory,
// and recommended). Keys the report does not use are left alone: results files grow.
Entry entry_of(const JsonNode& node) {
  Entry e;
  if (!node.expect_object()) return e;
  e.scenario = node.required("scenario").string();
  e.policy = node.required("policy").string();
  e.source = node.member("source").choice({"simulated", "measured"}, 0) == 1 ? "measured" : "simulated";
  e.wall_s = node.required("wall_s").number(0, 0);
  if (const JsonNode range = node.member("wall_s_range"); range.present() && range.expect_object()) {
    e.wall_cheap_s = range.required("cheap").number(0, 0);
    e.wall_dear_s = range.required("dear").number(0, 0);
  }
  e.sensitivity = read_sensitivity(node);
  e.validated_region = read_region_note(node);
  e.rpcs = node.required("rpcs").number(0, 0);
  e.bytes_wire = node.required("bytes_wire").number(0, 0);
  const double uncompressed = node.required("bytes_uncompressed").number(0, 0);
  if (e.rpcs > 0) e.batch_bytes_mean = uncompressed / e.rpcs;
  // What bounded it: its exchanges' sender time summed (results written
  // before sender_time_s have none).
  const JsonNode exchanges = node.member("exchanges");
  if (exchanges.present() && exchanges.expect_array()) {
    TimeByBound time;
    for (std::size_t i = 0; i < exchanges.size(); ++i) {
      const JsonNode parts = exchanges.element(i).member("sender_time_s");
      if (!parts.present() || !parts.expect_object()) continue;
      for (std::size_t b = 0; b < kBounds; ++b) {
        time.seconds[b] += parts.member(to_string(static_cast<Bound>(b))).number(0, 0);
      }
    }
    e.bound = describe_bound(time);
  }
  const JsonNode hosts = node.required("hosts");
  if (hosts.present() && hosts.expect_array()) {
    if (hosts.size() == 0) hosts.error("expected at least one host");
    for (std::size_t i = 0; i < hosts.size(); ++i) {
      const JsonNode h = hosts.element(i);
      if (!h.expect_object()) continue;
      e.hosts.push_back(h.required("name").string());
      e.sender_peak = std::max(e.sender_peak, h.required("sender_peak_bytes").number(0, 0));
      e.sender_expected = std::max(e.sender_expected, h.required("sender_expected_bytes").number(0, 0));
      e.sender_worst = std::max(e.sender_worst, h.required("sender_worst_bytes").number(0, 0));
    }
  }
  const JsonNode cpu = node.member("cpu_s");
  if (cpu.present() && cpu.expect_object()) {
    for (const auto& stage : cpu.keys()) e.cpu_s.emplace_back(stage, cpu.member(stage).number(0, 0));
  }
  const JsonNode config = node.member("config");
  if (config.present() && config.expect_object()) {
    e.mt_dop = static_cast<int>(config.member("mt_dop").integer(-1, 0, 1024));
    e.in_flight = static_cast<int>(config.member("in_flight").integer(0, 1, 64));
    const JsonNode buffer = config.member("buffer");
    if (buffer.present() && buffer.expect_object()) e.buffer_flat = buffer.member("flat").integer(0, 1);
    for (const auto& key : config.keys()) {
      if (key != "mt_dop" && key != "in_flight" && key != "buffer") {
        e.config.emplace_back(key, text_of(config.member(key).json()));
      }
    }
  }
  const JsonNode nominal = node.member("rtt_ms").member("nominal");
  if (nominal.present() && nominal.expect_array()) {
    for (std::size_t i = 0; i < nominal.size(); ++i) {
      const JsonNode row = nominal.element(i);
      e.rtt_nominal_ms.emplace_back();
      if (!row.expect_array()) continue;
      for (std::size_t j = 0; j < row.size(); ++j) e.rtt_nominal_ms.back().push_back(row.element(j).number(0, 0));
    }
  }
  const JsonNode groups = node.member("rtt_ms").member("groups");
  if (groups.present() && groups.expect_array()) {
    for (std::size_t i = 0; i < groups.size(); ++i) e.host_groups.push_back(groups.element(i).string());
  }
  e.sweep_point = static_cast<int>(node.member("sweep").member("point").integer(-1, 0, 1 << 30));
  const JsonNode set = node.member("sweep").member("set");
  if (set.present() && set.expect_object()) {
    for (const auto& key : set.keys()) e.settings.emplace_back(key, text_of(set.member(key).json()));
  }
  e.label = relabel(e);
  return e;
}

double error_of(const json& errors, const char* key) {
  return errors.contains(key) && errors.at(key).is_number() ? errors.at(key).get<double>() : 0.0;
}

// A validate --json document's comparisons: both halves of each, and its errors.
void read_validations(const JsonNode& comparisons, ReportInput& in) {
  if (!comparisons.expect_array()) return;
  for (std::size_t i = 0; i < comparisons.size(); ++i) {
    const JsonNode c = comparisons.element(i);
    if (!c.expect_object()) continue;
    const Entry predicted = entry_of(c.required("predicted"));
    const Entry measured = entry_of(c.required("measured"));
    const json errors = c.member("error").present() ? c.member("error").json() : json::object();
    in.validations.push_back({predicted.scenario + " / " + predicted.policy, predicted.wall_s, measured.wall_s,
                              error_of(errors, "wall_s"), error_of(errors, "rpcs"), error_of(errors, "bytes_wire"),
                              error_of(errors, "sender_peak_bytes")});
    in.entries.push_back(predicted);
    in.entries.push_back(measured);
  }
}

// A validation file's verdict ("summary") and thresholds, when it has them.
void read_verdict(const JsonNode& root, const std::string& path, ReportInput& in) {
  const JsonNode summary = root.member("summary");
  const JsonNode thresholds = root.member("thresholds");
  if (!summary.present() || !thresholds.present() || !summary.expect_object() || !thresholds.expect_object()) return;
  ValidationVerdict v;
  v.file = path;
  v.wall_median_error = summary.member("wall_median_error").number(0, 0);
  v.wall_max_error = summary.member("wall_max_error").number(0, 0);
  v.wall_median_threshold = thresholds.member("wall_median_error").number(0, 0);
  v.wall_max_threshold = thresholds.member("wall_max_error").number(0, 0);
  const JsonNode passed = summary.member("passed");
  const bool judged = passed.present() && passed.json().is_boolean();
  v.outcome = !judged ? "no verdict" : passed.json().get<bool>() ? "passed" : "failed";
  const JsonNode reasons = summary.member(judged ? "violations" : "no_verdict");
  if (reasons.present() && reasons.expect_array()) {
    for (std::size_t i = 0; i < reasons.size(); ++i) v.reasons.push_back(reasons.element(i).string());
  }
  // A verdict on fewer rows says which were left out.
  const JsonNode unjudged = summary.member("unjudged");
  if (judged && unjudged.present() && unjudged.expect_array()) {
    for (std::size_t i = 0; i < unjudged.size(); ++i) v.reasons.push_back("unjudged: " + unjudged.element(i).string());
  }
  in.verdicts.push_back(std::move(v));
}

// `advise -o`: its base and every candidate it simulated, as results of its
// scenario, each with its worst-case and expected sender memory and what
// bounded it. They lack RPCs and bytes, which advise does not keep.
void read_advice(const JsonNode& root, ReportInput& in) {
  const std::string scenario = root.required("scenario").string();
  const int mt_dop = static_cast<int>(root.member("mt_dop").integer(-1, 0, 1024));
  const auto add = [&](const JsonNode& node, const char* name_key) {
    Entry e;
    e.label = e.policy = node.required(name_key).string();
    e.scenario = scenario;
    e.source = "simulated";
    e.mt_dop = mt_dop;
    e.wall_s = node.required("wall_s").number(0, 0);
    e.sender_worst = node.required("worst_bytes").number(0, 0);
    e.sender_expected = node.required("expected_bytes").number(0, 0);
    if (node.member("bound_by").present()) e.bound = node.member("bound_by").string();
    in.entries.push_back(std::move(e));
  };
  add(root.required("base"), "policy");
  const JsonNode candidates = root.required("candidates");
  if (!candidates.expect_array()) return;
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    const JsonNode c = candidates.element(i);
    if (c.required("simulated").boolean(false)) add(c, "name");
  }
}

// One results file's entries (and validations), appended to `in`.
void read_results_file(const std::string& path, ReportInput& in) {
  const std::string text = read_text_file(path, "results");
  const std::size_t first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) throw InputError({fmt::format("{}: empty: expected results", path)});
  // One JSON document: results (an array) or validation results; else JSON
  // Lines (sweep). A file that opens an array is read as one, so that a
  // truncated array is named by its line and column; only an object is
  // tried whole, to tell a validation document from a sweep's lines.
  const bool array = text[first] == '[';
  bool validation = false, advice = false;
  if (!array) {
    const json whole = json::parse(text, nullptr, /*allow_exceptions=*/false);
    validation = whole.is_object() && whole.contains("comparisons");
    advice = whole.is_object() && whole.contains("candidates") && whole.contains("pick");
    if (whole.is_object() && !validation && !advice && !whole.contains("policy")) {
      throw InputError({fmt::format("{}: a JSON object that is neither validation results (\"comparisons\"), "
                                       "advice (\"candidates\") nor a results line (\"policy\"): expected "
                                       "results, as simulate, run, sweep, validate or advise write them",
                                       path)});
    }
    // Not one JSON value: JSON Lines, unless its first line is no JSON value by
    // itself (a document spread over lines, cut short): named by line and column.
    const auto lines = json_lines(text);
    if (whole.is_discarded() && !lines.empty() &&
        json::parse(lines.front().second, nullptr, /*allow_exceptions=*/false).is_discarded()) {
      parse_json_text(text, path);
    }
  }
  if (array || validation || advice) {
    const json doc = parse_json_text(text, path);
    Diagnostics diagnostics(path);
    const JsonNode root(&doc, "", &diagnostics);
    if (advice) {
      read_advice(root, in);
    } else if (array) {
      for (std::size_t i = 0; i < root.size(); ++i) in.entries.push_back(entry_of(root.element(i)));
    } else {
      read_validations(root.member("comparisons"), in);
      read_verdict(root, path, in);
    }
    diagnostics.throw_if_errors();
    return;
  }
  const std::size_t from = in.entries.size();
  long long points = 0;  // the sweep's, as its lines declare them
  for (const auto& [line, row] : json_lines(text)) {
    const std::string where = fmt::format("{}:{}", path, line);
    const json r = parse_json_text(row, where);
    Diagnostics diagnostics(where);
    const JsonNode node(&r, "", &diagnostics);
    in.entries.push_back(entry_of(node));
    points = std::max<long long>(points, node.member("sweep").member("points").integer(0, 0, 1 << 30));
    diagnostics.throw_if_errors();
  }
  // A sweep writes a point's lines as the point finishes, so parallel points
  // come in any order: by point, as `sweep merge` orders them, the report
  // (its numbering and its baseline) is the same however they ran. A point's
  // lines keep their order (the scenario's policies).
  std::stable_sort(in.entries.begin() + static_cast<std::ptrdiff_t>(from), in.entries.end(),
                   [](const Entry& a, const Entry& b) { return a.sweep_point < b.sweep_point; });
  // A sweep cut short reads as a smaller sweep unless said: its points.
  std::set<int> present;
  for (std::size_t i = from; i < in.entries.size(); ++i) {
    if (in.entries[i].sweep_point >= 0) present.insert(in.entries[i].sweep_point);
  }
  const bool partial = path.size() > 8 && path.compare(path.size() - 8, 8, ".partial") == 0;
  if (points > 0 && (partial || static_cast<long long>(present.size()) < points)) {
    in.warnings.push_back(fmt::format("{}: {} of the sweep's {} points{}", path, present.size(), points,
                                      partial ? " (a .partial file: the sweep had not finished)"
                                              : "; the others are missing"));
  }
}

}  // namespace

std::pair<std::string, std::string> setting_as_column(const std::string& key, const std::string& value) {
  auto ends_with = [&](const std::string& tail) {
    return key.size() >= tail.size() && key.compare(key.size() - tail.size(), tail.size(), tail) == 0;
  };
  if (key == "mt_dop") return {"MT_DOP", value};
  if (key == "cluster.rtt_ms.cross_group") return {"cross-group RTT", value + " ms"};
  if (key == "cluster.rtt_ms.same_group") return {"same-group RTT", value + " ms"};
  if (key == "cluster.rtt_ms.self") return {"same-host RTT", value + " ms"};
  if (key == "cluster.nic_gbps") return {"NIC", value + " Gbit/s"};
  if (key == "cluster.hosts") return {"hosts", value};
  if (ends_with(".in_flight")) return {"in flight", value};
  if (ends_with(".buffer.flat")) return {"buffer", value};
  if (ends_with(".buffer.budget")) return {"budget", value};
  std::string word = key.substr(key.rfind('.') == std::string::npos ? 0 : key.rfind('.') + 1);
  std::replace(word.begin(), word.end(), '_', ' ');
  return {word, value};
}

std::string setting_in_words(const std::string& key, const std::string& value) {
  const auto [name, cell] = setting_as_column(key, value);
  // Counts read before their noun: "2 in flight", "20 hosts".
  return name == "in flight" || name == "hosts" ? cell + " " + name : name + " " + cell;
}

bool is_policy_setting(const std::string& key) { return key.rfind("policies.", 0) == 0; }

std::string policy_label(const Entry& e, bool with_scenario) {
  std::string label = with_scenario ? e.scenario + " / " + e.policy : e.policy;
  std::string own;
  for (const auto& [key, value] : e.settings) {
    if (is_policy_setting(key)) own += (own.empty() ? "" : ", ") + setting_in_words(key, value);
  }
  if (!own.empty()) label += " (" + own + ")";
  return e.source == "measured" ? label + " (measured)" : label;
}

std::string environment_of(const Entry& e) {
  std::string point;
  for (const auto& [key, value] : e.settings) {
    if (is_policy_setting(key)) continue;
    point += (point.empty() ? "" : ", ") + setting_in_words(key, value);
  }
  return point;
}

std::vector<std::vector<std::size_t>> environment_points(const std::vector<Entry>& entries) {
  std::map<std::pair<std::string, std::string>, std::size_t> index;  // (scenario, environment) -> point
  std::vector<std::vector<std::size_t>> points;
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const auto [at, added] = index.try_emplace({entries[i].scenario, environment_of(entries[i])}, points.size());
    if (added) points.emplace_back();
    points[at->second].push_back(i);
  }
  return points;
}

std::vector<std::string> ReportInput::scenarios() const {
  std::vector<std::string> names;
  for (const auto& e : entries) {
    if (std::find(names.begin(), names.end(), e.scenario) == names.end()) names.push_back(e.scenario);
  }
  return names;
}

std::vector<std::size_t> ReportInput::baselines() const {
  std::vector<std::size_t> baseline(entries.size());
  for (const auto& point : environment_points(entries)) {
    for (std::size_t i : point) baseline[i] = point.front();
  }
  return baseline;
}

ReportInput read_report_input(const std::vector<std::string>& paths) {
  ReportInput in;
  for (const auto& path : paths) {
    in.files.push_back(path);
    const std::size_t before = in.entries.size();
    read_results_file(path, in);
    if (in.entries.size() == before) throw InputError({fmt::format("{}: no results in it", path)});
  }
  // Results of one scenario at several MT_DOPs outside a sweep (files
  // simulated with --set mt_dop=N): the MT_DOP is their environment, as a
  // sweep's would be, so that they compete and are labelled apart.
  for (const auto& scenario : in.scenarios()) {
    std::set<int> mt_dops;
    for (const auto& e : in.entries) {
      if (e.scenario == scenario && e.mt_dop >= 0) mt_dops.insert(e.mt_dop);
    }
    if (mt_dops.size() < 2) continue;
    for (auto& e : in.entries) {
      const bool swept = std::any_of(e.settings.begin(), e.settings.end(), [](const auto& s) { return s.first == "mt_dop"; });
      if (e.scenario != scenario || e.mt_dop < 0 || swept) continue;
      e.settings.emplace_back("mt_dop", std::to_string(e.mt_dop));
      e.label = relabel(e);
    }
  }
  if (in.scenarios().size() > 1) {
    for (auto& e : in.entries) e.label = e.scenario + " / " + e.label;
  }
  return in;
}

}  // namespace exsim::report
