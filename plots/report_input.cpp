#include "plots/report_input.h"

#include <algorithm>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "models/error.h"
#include "models/json_reader.h"

namespace exsim::report {
namespace {

using json = nlohmann::ordered_json;

std::string text_of(const json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

// One results object (the spec's results format); `where` names it in errors.
Entry entry_of(const json& r, const std::string& where) {
  for (const char* key : {"scenario", "policy", "wall_s", "rpcs", "hosts"}) {
    if (!r.is_object() || !r.contains(key)) {
      throw ScenarioError({fmt::format("{}: expected a results object (spec results format) with \"{}\"", where, key)});
    }
  }
  Entry e;
  try {
    e.scenario = r.at("scenario").get<std::string>();
    e.policy = r.at("policy").get<std::string>();
    e.source = r.value("source", "simulated");
    e.wall_s = r.at("wall_s").get<double>();
    e.rpcs = r.at("rpcs").get<double>();
    e.bytes_wire = r.value("bytes_wire", 0.0);
    if (e.rpcs > 0) e.batch_bytes_mean = r.value("bytes_uncompressed", 0.0) / e.rpcs;
    for (const auto& h : r.at("hosts")) {
      e.hosts.push_back(h.value("name", ""));
      e.sender_peak = std::max(e.sender_peak, h.value("sender_peak_bytes", 0.0));
      e.sender_expected = std::max(e.sender_expected, h.value("sender_expected_bytes", 0.0));
      e.sender_worst = std::max(e.sender_worst, h.value("sender_worst_bytes", 0.0));
    }
    if (r.contains("cpu_s")) {
      for (const auto& [stage, s] : r.at("cpu_s").items()) e.cpu_s.emplace_back(stage, s.get<double>());
    }
    if (r.contains("config")) {
      const json& c = r.at("config");
      e.mt_dop = c.value("mt_dop", -1);
      e.in_flight = c.value("in_flight", 0);
      if (c.contains("buffer") && c.at("buffer").contains("flat")) e.buffer_flat = c.at("buffer").at("flat").get<long long>();
    }
    if (r.contains("rtt_ms") && r.at("rtt_ms").contains("nominal")) {
      e.rtt_nominal_ms = r.at("rtt_ms").at("nominal").get<std::vector<std::vector<double>>>();
    }
    if (r.contains("sweep")) {
      for (const auto& [key, value] : r.at("sweep").at("set").items()) e.settings.emplace_back(key, text_of(value));
    }
  } catch (const json::exception& x) {
    throw ScenarioError({fmt::format("{}: a results object with a value of the wrong type: {}", where, x.what())});
  }
  e.label = e.policy;
  for (const auto& [key, value] : e.settings) e.label += fmt::format(" {}={}", key, value);
  if (e.source == "measured") e.label += " (measured)";
  return e;
}

double error_of(const json& errors, const char* key) {
  return errors.contains(key) && errors.at(key).is_number() ? errors.at(key).get<double>() : 0.0;
}

}  // namespace

ReportInput read_report_input(const std::vector<std::string>& paths) {
  ReportInput in;
  for (const auto& path : paths) {
    in.files.push_back(path);
    const std::string text = read_text_file(path, "results");
    if (text.find_first_not_of(" \t\r\n") == std::string::npos) {
      throw ScenarioError({fmt::format("{}: empty: expected results", path)});
    }
    // One JSON document: results (an array) or validation results; else JSON Lines (sweep).
    const json doc = json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (doc.is_array()) {
      for (std::size_t i = 0; i < doc.size(); ++i) in.entries.push_back(entry_of(doc[i], fmt::format("{}:/{}", path, i)));
      continue;
    }
    if (doc.is_object() && doc.contains("comparisons")) {
      if (!doc.at("comparisons").is_array()) {
        throw ScenarioError({fmt::format("{}:/comparisons: expected an array of validated policies", path)});
      }
      for (std::size_t i = 0; i < doc.at("comparisons").size(); ++i) {
        const json& c = doc.at("comparisons")[i];
        const std::string where = fmt::format("{}:/comparisons/{}", path, i);
        const Entry predicted = entry_of(c.value("predicted", json()), where + "/predicted");
        const Entry measured = entry_of(c.value("measured", json()), where + "/measured");
        const json errors = c.value("error", json::object());
        in.validations.push_back({predicted.scenario + " / " + predicted.policy, predicted.wall_s, measured.wall_s,
                                  error_of(errors, "wall_s"), error_of(errors, "rpcs"), error_of(errors, "bytes_wire"),
                                  error_of(errors, "sender_peak_bytes")});
        in.entries.push_back(predicted);
        in.entries.push_back(measured);
      }
      continue;
    }
    for (const auto& [line, row] : json_lines(text)) {
      const json r = json::parse(row, nullptr, /*allow_exceptions=*/false);
      if (r.is_discarded()) {
        throw ScenarioError({fmt::format("{}:{}: expected one results object per line (JSON Lines)", path, line)});
      }
      in.entries.push_back(entry_of(r, fmt::format("{}:{}", path, line)));
    }
  }
  if (in.entries.empty()) throw ScenarioError({"no results to report"});
  return in;
}

}  // namespace exsim::report
