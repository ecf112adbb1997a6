#include "workflows/sweep_resume.h"

#include <map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "models/base/error.h"
#include "models/scenario/overrides.h"

namespace exsim::workflows {
namespace {

using ordered = nlohmann::ordered_json;

// The settings as a result line holds them ("set" and "vary": values as --set reads them).
ordered settings_json(const std::vector<std::pair<std::string, std::string>>& settings) {
  ordered set = ordered::object();
  for (const auto& [key, value] : settings) set[key] = override_value(value);
  return set;
}

ordered variations_json(const SweepPlan& plan) {
  ordered vary = ordered::object();
  for (const auto& v : plan.variations()) {
    vary[v.key] = ordered::array();
    for (const auto& value : v.values) vary[v.key].push_back(override_value(value));
  }
  return vary;
}

}  // namespace

SweepResume read_sweep_resume(const std::string& text, const std::string& where, const SweepPlan& plan,
                              const std::vector<SweepPoint>& points, std::size_t policies) {
  std::map<std::size_t, const SweepPoint*> held;
  for (const SweepPoint& p : points) held[p.index] = &p;
  const ordered vary = variations_json(plan);
  std::map<std::size_t, std::vector<std::string>> lines_of;  // point -> its lines
  SweepResume resume;
  std::size_t number = 0, start = 0;
  while (start < text.size()) {
    const std::size_t end = text.find('\n', start);
    const bool whole = end != std::string::npos;  // a line cut short has no newline
    const std::string line = text.substr(start, whole ? end - start : std::string::npos);
    start = whole ? end + 1 : text.size();
    ++number;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    const ordered r = ordered::parse(line, nullptr, /*allow_exceptions=*/false);
    if (!whole || r.is_discarded()) {
      ++resume.dropped_lines;
      continue;
    }
    const auto other = [&](const std::string& why) {
      return UsageError(fmt::format("--resume: {}:{}: {}: not this sweep's (remove the file to start afresh)", where,
                                    number, why));
    };
    if (!r.is_object() || !r.contains("sweep") || !r["sweep"].is_object()) throw other("no \"sweep\" in it");
    const ordered& sweep = r["sweep"];
    if (sweep.value("points", ordered()) != ordered(plan.size())) {
      throw other(fmt::format("a sweep of {} points, this one has {}", sweep.value("points", ordered()).dump(),
                              plan.size()));
    }
    if (sweep.value("vary", ordered()) != vary) {
      throw other(fmt::format("--vary {}, this sweep's {}", sweep.value("vary", ordered()).dump(), vary.dump()));
    }
    const ordered index = sweep.value("point", ordered());
    if (!index.is_number_unsigned() || !held.count(index.get<std::size_t>())) {
      throw other(fmt::format("point {}, which this run does not hold", index.dump()));
    }
    const SweepPoint& point = *held[index.get<std::size_t>()];
    if (sweep.value("set", ordered()) != settings_json(point.settings)) {
      throw other(fmt::format("point {} set {}, this sweep's {}", point.index, sweep.value("set", ordered()).dump(),
                              settings_json(point.settings).dump()));
    }
    lines_of[point.index].push_back(line + "\n");
  }
  for (const auto& [index, lines] : lines_of) {
    if (lines.size() != policies) {
      resume.dropped_lines += lines.size();
      continue;
    }
    resume.done.insert(index);
    for (const auto& line : lines) resume.lines += line;
  }
  return resume;
}

}  // namespace exsim::workflows
