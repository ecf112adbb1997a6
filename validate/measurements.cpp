#include "validate/measurements.h"

#include <nlohmann/json.hpp>

#include "models/base/json_reader.h"
#include "models/results/results_reader.h"

namespace exsim::validate {

Measurements load_measurements(const std::string& path) {
  const nlohmann::ordered_json document = parse_json_text(read_text_file(path, "the validation results"), path);
  Diagnostics diagnostics(path);
  const JsonNode root(&document, "", &diagnostics);
  Measurements out;
  if (root.expect_object()) {
    if (const JsonNode t = root.required("thresholds"); t.expect_object()) {
      out.thresholds.wall_median_error = t.required("wall_median_error").number(0, 0);
      out.thresholds.wall_max_error = t.required("wall_max_error").number(0, 0);
      out.thresholds.rpcs_error = t.required("rpcs_error").number(0, 0);
      out.thresholds.bytes_error = t.required("bytes_error").number(0, 0);
      out.thresholds.sender_peak_error = t.required("sender_peak_error").number(0, 0);
      out.thresholds.unjudged_max = static_cast<int>(t.member("unjudged_max").integer(0, 0, 1000));
    }
    const JsonNode rows = root.required("comparisons");
    if (rows.expect_array()) {
      if (rows.size() == 0) rows.error("expected at least one comparison, got none");
      for (std::size_t i = 0; i < rows.size(); ++i) {
        const JsonNode row = rows.element(i);
        if (!row.expect_object()) continue;
        Measurement m;
        m.scenario_file = row.required("scenario_file").string();
        m.costs = read_cost_profile(row.required("costs"));
        m.steady = row.member("steady").boolean(true);
        m.unsteady_why = row.member("unsteady_why").string();
        if (const JsonNode cluster = row.member("cluster"); cluster.present() && cluster.expect_object()) {
          m.cluster = cluster.json().dump();
        }
        if (const JsonNode slowdown = row.member("machine_slowdown"); slowdown.present() && slowdown.expect_object()) {
          m.slowdown.compute = slowdown.required("compute").number(1, 0, true);
          m.slowdown.calls = slowdown.required("calls").number(1, 0, true);
        }
        const JsonNode measured = row.required("measured");
        if (!measured.present()) continue;
        m.measured = read_run_result(measured);
        if (m.measured.source != "measured") {
          row.member("measured").member("source").error("expected \"measured\", got \"" + m.measured.source + "\"");
        }
        out.rows.push_back(std::move(m));
      }
    }
  }
  diagnostics.throw_if_errors();
  return out;
}

}  // namespace exsim::validate
