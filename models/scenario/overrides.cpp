#include "models/scenario/overrides.h"

#include <charconv>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "models/base/error.h"
#include "models/base/json_reader.h"

namespace exsim {
namespace {

std::vector<std::string> split_path(std::string_view path) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    size_t dot = path.find('.', start);
    parts.emplace_back(path.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start));
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  return parts;
}

std::optional<size_t> parse_index(const std::string& text) {
  size_t index = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), index);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return index;
}

// Members of these objects are named by the user, so the loader cannot tell
// a misspelt one from a new one: a --set that would add one (a policy "16X"
// beside "16K", a group) is refused rather than answered with a confident
// wrong result. Such names are added in the scenario file.
void refuse_new_name(const nlohmann::ordered_json& node, const std::vector<std::string>& parts, size_t depth,
                     std::string_view assignment) {
  const bool policies = depth == 1 && parts[0] == "policies";
  const bool groups = depth == 2 && parts[0] == "cluster" && parts[1] == "groups";
  if (!policies && !groups) return;
  std::vector<std::string> names;
  std::string listed;
  for (const auto& [name, _] : node.items()) {
    names.push_back(name);
    listed += (listed.empty() ? "" : ", ") + name;
  }
  const std::string hint = closest_name(parts[depth], names);
  throw UsageError(fmt::format("--set {}: the scenario has no {} '{}'{}; it has {}; a new one goes in the scenario file",
                               assignment, policies ? "policy" : "group", parts[depth],
                               hint.empty() ? "" : fmt::format(" (did you mean '{}'?)", hint),
                               listed.empty() ? "none" : listed));
}

// Sets `value` at parts[depth..] below `node` (at JSON pointer `at`); adds
// the pointer of every place set to `set`.
void assign(nlohmann::ordered_json& node, const std::string& at, const std::vector<std::string>& parts, size_t depth,
            const nlohmann::ordered_json& value, std::string_view assignment, std::vector<std::string>& set) {
  const std::string& part = parts[depth];
  const bool last = depth + 1 == parts.size();
  auto descend = [&](nlohmann::ordered_json& child, std::string_view token) {
    const std::string pointer = at + "/" + escape_pointer_token(token);
    if (last) {
      child = value;
      set.push_back(pointer);
      return;
    }
    assign(child, pointer, parts, depth + 1, value, assignment, set);
  };
  if (part == "*") {
    if (node.is_object()) {
      for (auto& [key, child] : node.items()) descend(child, key);
    } else if (node.is_array()) {
      for (std::size_t i = 0; i < node.size(); ++i) descend(node[i], std::to_string(i));
    }
    return;
  }
  if (node.is_array()) {
    auto index = parse_index(part);
    if (!index || *index >= node.size()) {
      throw UsageError(fmt::format("--set {}: '{}' is not an index of an array of {} elements", assignment, part,
                                   node.size()));
    }
    descend(node[*index], part);
    return;
  }
  if (node.is_null()) node = nlohmann::ordered_json::object();
  if (!node.is_object()) {
    throw UsageError(fmt::format("--set {}: cannot set '{}' inside a {}", assignment, part, node.type_name()));
  }
  if (!node.contains(part)) refuse_new_name(node, parts, depth, assignment);
  descend(node[part], part);
}

}  // namespace

nlohmann::ordered_json override_value(std::string_view text) {
  nlohmann::ordered_json value = nlohmann::ordered_json::parse(text, nullptr, /*allow_exceptions=*/false);
  return value.is_discarded() ? nlohmann::ordered_json(std::string(text)) : value;
}

std::vector<std::string> apply_override(nlohmann::ordered_json& document, std::string_view assignment) {
  size_t equals = assignment.find('=');
  if (equals == std::string_view::npos || equals == 0) {
    throw UsageError(fmt::format("--set {}: expected KEY=VALUE, e.g. --set mt_dop=8", assignment));
  }
  std::string_view path = assignment.substr(0, equals);
  const nlohmann::ordered_json value = override_value(assignment.substr(equals + 1));
  auto parts = split_path(path);
  for (const auto& p : parts) {
    if (p.empty()) throw UsageError(fmt::format("--set {}: empty key in path '{}'", assignment, path));
  }
  std::vector<std::string> set;
  assign(document, "", parts, 0, value, assignment, set);
  if (set.empty()) throw UsageError(fmt::format("--set {}: path '{}' matches nothing in the scenario", assignment, path));
  return set;
}

}  // namespace exsim
