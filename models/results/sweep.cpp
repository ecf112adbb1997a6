#include "models/results/sweep.h"

#include <algorithm>
#include <charconv>
#include <map>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "models/base/error.h"
#include "models/base/json_reader.h"

namespace exsim {
namespace {

constexpr std::size_t kMaxPoints = 1'000'000;

int parse_int(std::string_view s, int fallback) {
  int value = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  return ec == std::errc() && end == s.data() + s.size() ? value : fallback;
}

}  // namespace

Variation parse_variation(std::string_view spec) {
  const std::size_t eq = spec.find('=');
  Variation v;
  if (eq == std::string_view::npos || eq == 0 || eq + 1 == spec.size()) {
    throw UsageError(fmt::format("--vary {}: expected KEY=V1,V2,... such as mt_dop=0,8", spec));
  }
  v.key = std::string(spec.substr(0, eq));
  // Values are split at the commas outside JSON brackets and strings, so that a
  // value may be an object or a list, as --set takes it: rtt_ms={"same_group":0.1,...},{...}.
  std::string_view rest = spec.substr(eq + 1);
  int depth = 0;
  bool quoted = false;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= rest.size(); ++i) {
    const char c = i < rest.size() ? rest[i] : ',';
    if (quoted) {
      if (c == '\\') ++i;
      else if (c == '"') quoted = false;
      continue;
    }
    if (c == '"') quoted = true;
    if (c == '{' || c == '[') ++depth;
    if ((c == '}' || c == ']') && depth > 0) --depth;
    if (c != ',' || (depth > 0 && i < rest.size())) continue;
    const std::string value(rest.substr(start, i - start));
    if (value.empty()) throw UsageError(fmt::format("--vary {}: an empty value in the list", spec));
    if (std::find(v.values.begin(), v.values.end(), value) != v.values.end()) {
      throw UsageError(fmt::format("--vary {}: the value {} is given twice", spec, value));
    }
    v.values.push_back(value);
    start = i + 1;
  }
  return v;
}

std::vector<std::string> SweepPoint::overrides() const {
  std::vector<std::string> out;
  for (const auto& [key, value] : settings) out.push_back(key + "=" + value);
  return out;
}

std::string SweepPoint::label() const {
  std::string out;
  for (const auto& s : overrides()) out += (out.empty() ? "" : " ") + s;
  return out;
}

SweepPlan::SweepPlan(std::vector<Variation> variations) : variations_(std::move(variations)) {
  if (variations_.empty()) throw UsageError("expected at least one --vary KEY=V1,V2,...");
  std::set<std::string> keys;
  for (const auto& v : variations_) {
    if (!keys.insert(v.key).second) throw UsageError(fmt::format("--vary {}: the key is varied twice", v.key));
    if (size_ > kMaxPoints / v.values.size()) {
      throw UsageError(fmt::format("the variations make more than {} points; split the sweep", kMaxPoints));
    }
    size_ *= v.values.size();
  }
}

SweepPoint SweepPlan::point(std::size_t index) const {
  SweepPoint p;
  p.index = index;
  p.settings.resize(variations_.size());
  for (std::size_t i = variations_.size(); i-- > 0;) {
    const auto& v = variations_[i];
    p.settings[i] = {v.key, v.values[index % v.values.size()]};
    index /= v.values.size();
  }
  return p;
}

Shard parse_shard(std::string_view spec) {
  const std::size_t slash = spec.find('/');
  Shard s;
  s.k = slash == std::string_view::npos ? 0 : parse_int(spec.substr(0, slash), 0);
  s.n = slash == std::string_view::npos ? 0 : parse_int(spec.substr(slash + 1), 0);
  if (s.n < 1 || s.k < 1 || s.k > s.n) {
    throw UsageError(fmt::format("--shard {}: expected K/N with 1 <= K <= N, such as 2/3", spec));
  }
  return s;
}

std::string merge_sweep_results(const std::vector<std::pair<std::string, std::string>>& files) {
  struct Line {
    std::size_t point;
    std::size_t policy;
    std::string text;
  };
  std::vector<Line> lines;
  std::map<std::string, std::size_t> policies;  // in the order first named
  std::set<std::pair<std::size_t, std::size_t>> seen;
  long points = -1;
  std::string keys, first_place;
  for (const auto& [file, text] : files) {
    for (const auto& [number, row] : json_lines(text)) {
      const std::string line(row);
      const std::string place = fmt::format("{}:{}", file, number);
      nlohmann::json j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
      const bool ok = j.is_object() && j.contains("sweep") && j["sweep"].is_object() &&
                      j["sweep"].contains("point") && j["sweep"]["point"].is_number_unsigned() &&
                      j["sweep"].contains("points") && j["sweep"]["points"].is_number_unsigned() &&
                      j["sweep"].contains("set") && j["sweep"]["set"].is_object() && j.contains("policy") &&
                      j["policy"].is_string();
      if (!ok) {
        throw InputError({fmt::format("{}: expected a sweep result line (a results object with \"sweep\": "
                                         "{{\"point\", \"points\", \"set\"}} and \"policy\"), found '{}'",
                                         place, line.substr(0, 80))});
      }
      const auto n = j["sweep"]["points"].get<long>();
      // One sweep: the same scenario, the same keys varied over the same values
      // (lines written before "vary" was recorded carry none, and match only such).
      std::string k = j.value("scenario", nlohmann::json()).dump() + "\n" + j["sweep"].value("vary", nlohmann::json()).dump();
      for (const auto& [key, value] : j["sweep"]["set"].items()) k += "\n" + key;
      if (points < 0) {
        points = n;
        keys = k;
        first_place = place;
      } else if (n != points || k != keys) {
        throw InputError({fmt::format("{}: this line's sweep ({} points of scenario {}) is not the sweep of {} ({} "
                                         "points, or another scenario or other variations): merge the shards of one sweep",
                                         place, n, j.value("scenario", nlohmann::json()).dump(), first_place, points)});
      }
      const auto point = j["sweep"]["point"].get<std::size_t>();
      if (point >= static_cast<std::size_t>(points)) {
        throw InputError({fmt::format("{}: point {} of a sweep of {} points", place, point, points)});
      }
      const auto policy = policies.emplace(j["policy"].get<std::string>(), policies.size()).first->second;
      if (!seen.insert({point, policy}).second) {
        throw InputError({fmt::format("{}: point {}, policy {} appears twice: merge each shard once", place,
                                         point, j["policy"].get<std::string>())});
      }
      lines.push_back({point, policy, line});
    }
  }
  if (points < 0) throw InputError({"no sweep result lines to merge"});
  std::vector<std::size_t> missing;
  for (std::size_t p = 0; p < static_cast<std::size_t>(points); ++p) {
    for (std::size_t q = 0; q < policies.size(); ++q) {
      if (!seen.count({p, q})) {
        missing.push_back(p);
        break;
      }
    }
  }
  if (!missing.empty()) {
    std::string list;
    for (std::size_t i = 0; i < std::min<std::size_t>(missing.size(), 20); ++i) list += fmt::format(" {}", missing[i]);
    throw InputError({fmt::format("{} of {} points have no result or not every policy's:{}{}: a shard is missing "
                                     "or was interrupted; run it again (--shard K/N) and merge",
                                     missing.size(), points, list, missing.size() > 20 ? " ..." : "")});
  }
  std::sort(lines.begin(), lines.end(),
            [](const Line& a, const Line& b) { return a.point != b.point ? a.point < b.point : a.policy < b.policy; });
  std::string out;
  for (const auto& l : lines) out += l.text + "\n";
  return out;
}

}  // namespace exsim
