#include "validate/validated_region.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <tuple>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "models/base/json_reader.h"
#include "models/base/size.h"
#include "models/base/text_units.h"
#include "models/rules/sizing_policy.h"
#include "models/scenario/costs.h"
#include "models/scenario/scenario_loader.h"

namespace exsim::validate {

extern const char* const kBuiltinRegionJson;

RegionPoint region_point(const Scenario& scenario, const Policy& policy) {
  RegionPoint p;
  p.in_flight = policy.in_flight;
  p.mt_dop = scenario.mt_dop;
  const int hosts = static_cast<int>(scenario.cluster.hosts.size());
  for (int a = 0; a < hosts; ++a) {
    for (int b = 0; b < hosts; ++b) {
      if (a != b) p.rtt_ms = std::max(p.rtt_ms, scenario.cluster.rtt.rtt_ms(a, b));
    }
  }
  double reach = 0;  // channels x batch bytes of the exchange kept
  for (const Query& q : scenario.queries) {
    for (const Exchange& x : q.exchanges) {
      if (x.send_path() != PartitionKind::kHash) continue;
      const int channels = x.receivers.instances();
      const double row = static_cast<double>(x.row.fixed_bytes) + x.row.varlen.mean();
      const auto batch = static_cast<double>(full_channel_batch(channel_capacity(policy, x.row, channels), row).tuple_bytes);
      if (channels * batch > reach) {
        reach = channels * batch;
        p.channels = channels;
        p.batch_bytes = batch;
      }
    }
  }
  return p;
}

std::vector<RegionRow> region_rows(const std::vector<Comparison>& comparisons, const std::string& suite_dir) {
  std::vector<RegionRow> rows;
  for (const Comparison& c : comparisons) {
    if (!c.steady) continue;
    const std::string file = suite_dir.empty() ? c.scenario_file
                                               : (std::filesystem::path(suite_dir) /
                                                  std::filesystem::path(c.scenario_file).filename()).string();
    const Scenario scenario = load_scenario(file);
    const auto policy = std::find_if(scenario.policies.begin(), scenario.policies.end(),
                                     [&](const Policy& p) { return p.name == c.predicted.policy; });
    if (policy == scenario.policies.end()) continue;
    rows.push_back({scenario.name + " / " + policy->name, region_point(scenario, *policy), c.wall_error});
  }
  return rows;
}

std::string region_json(const std::vector<RegionRow>& rows) {
  nlohmann::ordered_json out;
  out["description"] =
      "Where the model was checked against the real exchange: the validation suite's rows, each with its hash "
      "senders' channels and full channel batch, RPCs in flight, MT_DOP, largest RTT and the wall-clock error "
      "measured there. Written by `exsim validate --measured tests/data/validate/suite-measured.json "
      "scenarios/validation --region scenarios/validation/region.json`; built into exsim.";
  out["rows"] = nlohmann::ordered_json::array();
  for (const RegionRow& r : rows) {
    out["rows"].push_back({{"label", r.label},
                           {"channels", r.point.channels},
                           {"batch_bytes", r.point.batch_bytes},
                           {"in_flight", r.point.in_flight},
                           {"mt_dop", r.point.mt_dop},
                           {"rtt_ms", r.point.rtt_ms},
                           {"wall_error", r.wall_error}});
  }
  return out.dump(2) + "\n";
}

std::vector<RegionRow> parse_region(const std::string& text, const std::string& file) {
  const nlohmann::ordered_json json = parse_json_text(text, file);
  Diagnostics diagnostics(file);
  const JsonNode root(&json, "", &diagnostics);
  std::vector<RegionRow> rows;
  for_each_object(root, "rows", [&](const JsonNode& r) {
    RegionRow row;
    row.label = r.required("label").string();
    row.point.channels = r.required("channels").number(0, 0);
    row.point.batch_bytes = r.required("batch_bytes").number(0, 0);
    row.point.in_flight = static_cast<int>(r.required("in_flight").integer(1, 1, 64));
    row.point.mt_dop = static_cast<int>(r.required("mt_dop").integer(0, 0, 1024));
    row.point.rtt_ms = r.required("rtt_ms").number(0, 0);
    row.wall_error = r.required("wall_error").number(0);
    rows.push_back(row);
  });
  diagnostics.throw_if_errors();
  return rows;
}

const std::vector<RegionRow>& builtin_region() {
  static const std::vector<RegionRow> rows = parse_region(kBuiltinRegionJson, "scenarios/validation/region.json");
  return rows;
}

double median_wall_error(const std::vector<RegionRow>& rows) {
  if (rows.empty()) return 0;
  std::vector<double> errors;
  for (const RegionRow& r : rows) errors.push_back(std::abs(r.wall_error));
  return spread_of(std::move(errors)).median;
}

std::string RegionCheck::warning() const {
  if (inside) return "";
  std::string gaps_said;
  for (std::size_t i = 0; i < gaps.size(); ++i) gaps_said += (i ? "; " : "") + gaps[i];
  return fmt::format("outside the validated region: {}; the nearest suite row, {}, was {:+.1f}% off", gaps_said, nearest,
                     100 * nearest_error);
}

RegionCheck check_region(const RegionPoint& p, const std::vector<RegionRow>& rows) {
  RegionCheck check;
  if (rows.empty()) return check;
  const auto most = [&](auto field) {
    double m = 0;
    for (const RegionRow& r : rows) m = std::max(m, static_cast<double>(field(r.point)));
    return m;
  };
  if (p.channels > 0) {
    const bool reached = std::any_of(rows.begin(), rows.end(), [&](const RegionRow& r) {
      return r.point.channels >= p.channels * 0.999 && r.point.batch_bytes >= p.batch_bytes * 0.999;
    });
    if (!reached) {
      // The suite's reach: the largest batch at its most channels, and the most channels at a batch this large.
      const RegionRow* widest = &*std::max_element(rows.begin(), rows.end(), [](const RegionRow& a, const RegionRow& b) {
        return std::tie(a.point.channels, a.point.batch_bytes) < std::tie(b.point.channels, b.point.batch_bytes);
      });
      check.gaps.push_back(fmt::format("{:.0f} channels a sender with {} batches (no suite row has as many channels "
                                       "with as large batches; the most channels: {:.0f}, with {})",
                                       p.channels, human_bytes(p.batch_bytes),
                                       widest->point.channels, human_bytes(widest->point.batch_bytes)));
    }
  }
  if (const double m = most([](const RegionPoint& x) { return x.in_flight; }); p.in_flight > m) {
    check.gaps.push_back(fmt::format("{} RPCs in flight (the suite's most: {:.0f})", p.in_flight, m));
  }
  if (const double m = most([](const RegionPoint& x) { return x.mt_dop; }); p.mt_dop > m) {
    check.gaps.push_back(fmt::format("MT_DOP {} (the suite's most: {:.0f})", p.mt_dop, m));
  }
  if (const double m = most([](const RegionPoint& x) { return x.rtt_ms; }); p.rtt_ms > m * 1.001) {
    check.gaps.push_back(fmt::format("RTTs up to {:.2f} ms (the suite's longest: {:.2f} ms)", p.rtt_ms, m));
  }
  check.inside = check.gaps.empty();
  // The nearest row, in log distance over the five.
  const auto far = [&](const RegionPoint& r) {
    const auto d = [](double a, double b) { return std::abs(std::log((a + 1) / (b + 1))); };
    return d(p.channels, r.channels) + d(p.batch_bytes / 1024, r.batch_bytes / 1024) + d(p.in_flight, r.in_flight) +
           d(p.mt_dop, r.mt_dop) + d(10 * p.rtt_ms, 10 * r.rtt_ms);
  };
  const RegionRow* nearest = &*std::min_element(rows.begin(), rows.end(), [&](const RegionRow& a, const RegionRow& b) {
    return far(a.point) < far(b.point);
  });
  check.nearest = nearest->label;
  check.nearest_error = nearest->wall_error;
  return check;
}

}  // namespace exsim::validate
