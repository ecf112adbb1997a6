#include "validate/suite.h"

#include <algorithm>
#include <filesystem>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "models/base/error.h"
#include "models/base/json_reader.h"

namespace exsim::validate {
namespace fs = std::filesystem;

Thresholds parse_thresholds(const std::string& text, const std::string& file) {
  const nlohmann::ordered_json document = parse_json_text(text, file);
  Diagnostics diagnostics(file);
  const JsonNode root(&document, "", &diagnostics);
  Thresholds t;
  if (root.expect_object()) {
    root.reject_unknown_keys({"description", "wall_median_error", "wall_max_error", "rpcs_error", "bytes_error",
                              "sender_peak_error", "unjudged_max"});
    root.member("description").string();
    // Fractions: 0.10 is 10%. Above 10 is almost surely a percentage typed by mistake.
    auto fraction = [&](const char* key, double fallback) { return root.member(key).number(fallback, 0, false, 10); };
    t.wall_median_error = fraction("wall_median_error", t.wall_median_error);
    t.wall_max_error = fraction("wall_max_error", t.wall_max_error);
    t.rpcs_error = fraction("rpcs_error", t.rpcs_error);
    t.bytes_error = fraction("bytes_error", t.bytes_error);
    t.sender_peak_error = fraction("sender_peak_error", t.sender_peak_error);
    t.unjudged_max = static_cast<int>(root.member("unjudged_max").integer(t.unjudged_max, 0, 1000));
  }
  diagnostics.throw_if_errors();
  return t;
}

Suite load_suite(const std::vector<std::string>& inputs) {
  if (inputs.empty()) throw UsageError("expected a suite directory or scenario files");
  Suite suite;
  suite.thresholds_source = "defaults";
  int directories = 0;
  for (const auto& input : inputs) {
    std::error_code ec;
    if (fs::is_directory(input, ec)) {
      if (++directories > 1) throw UsageError("give at most one suite directory (its suite.json sets the thresholds)");
      std::vector<std::string> files;
      for (const auto& entry : fs::directory_iterator(input)) {
        const fs::path& path = entry.path();
        // suite.json holds the thresholds, region.json the suite's points (validated_region.h).
        if (entry.is_regular_file() && path.extension() == ".json" && path.filename() != "suite.json" &&
            path.filename() != "region.json") {
          files.push_back(path.string());
        }
      }
      std::sort(files.begin(), files.end());
      if (files.empty()) throw UsageError(fmt::format("{}: no scenario files (*.json) in the directory", input));
      suite.scenarios.insert(suite.scenarios.end(), files.begin(), files.end());
      const fs::path thresholds = fs::path(input) / "suite.json";
      if (fs::exists(thresholds)) {
        suite.thresholds = parse_thresholds(read_text_file(thresholds.string(), "the suite file"), thresholds.string());
        suite.thresholds_source = thresholds.string();
      }
    } else if (fs::is_regular_file(input, ec)) {
      suite.scenarios.push_back(input);
    } else {
      throw UsageError(fmt::format("{}: no such scenario file or suite directory", input));
    }
  }
  return suite;
}

}  // namespace exsim::validate
