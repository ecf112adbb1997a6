#include "models/impala/profile_json.h"

#include <cctype>
#include <cstdint>
#include <functional>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "models/base/json_reader.h"

namespace exsim {
namespace {

// The elements of `node`'s list `key`, each an object, when it has one.
void each(const JsonNode& node, std::string_view key, const std::function<void(const JsonNode&)>& read) {
  if (node.member(key).present()) for_each_object(node, key, read);
}

// A number as the text form prints it: times with their unit (in ns unless the
// profile says otherwise), everything else the number itself, exact.
std::string value_text(const JsonNode& value, std::string_view unit) {
  const double number = value.number(0);  // records "expected a number" when it is not one
  const std::string digits = value.present() && value.json().is_number_integer()
                                 ? std::to_string(value.json().get<std::int64_t>())
                                 : fmt::format("{}", number);
  if (unit == "TIME_NS") return digits + "ns";
  if (unit == "TIME_US") return digits + "us";
  if (unit == "TIME_MS") return digits + "ms";
  if (unit == "TIME_S") return digits + "s";
  return digits;
}

void render(const JsonNode& node, int depth, std::string& out) {
  if (!node.expect_object()) return;
  const std::string indent(static_cast<std::size_t>(2 * depth), ' ');
  const std::string inner = indent + "  ";
  const std::string name = node.required("profile_name").string();
  // The header carries the profile's TotalTime, as the text form's does.
  std::string total;
  each(node, "counters", [&](const JsonNode& c) {
    if (c.required("counter_name").string() == "TotalTime") total = value_text(c.required("value"), "TIME_NS");
  });
  out += total.empty() ? fmt::format("{}{}:\n", indent, name) : fmt::format("{}{}:(Total: {})\n", indent, name, total);
  each(node, "info_strings", [&](const JsonNode& i) {
    // A value of several lines (the plan, the exec summary) keeps its lines;
    // several values ("values": ["tpcds.date_dim"], a scan's tables) are joined.
    std::string value;
    if (i.member("values").present() && !i.member("value").present()) {
      const JsonNode values = i.member("values");
      if (values.expect_array()) {
        for (std::size_t k = 0; k < values.size(); ++k) value += (k ? ", " : "") + values.element(k).string();
      }
    } else {
      value = i.required("value").string();
    }
    std::size_t end = value.find('\n');
    out += fmt::format("{}{}: {}\n", inner, i.required("key").string(), value.substr(0, end));
    while (end != std::string::npos) {
      const std::size_t begin = end + 1;
      end = value.find('\n', begin);
      out += fmt::format("{}{}\n", inner, value.substr(begin, end == std::string::npos ? end : end - begin));
    }
  });
  each(node, "counters", [&](const JsonNode& c) {
    out += fmt::format("{} - {}: {}\n", inner, c.required("counter_name").string(),
                       value_text(c.required("value"), c.required("unit").string()));
  });
  each(node, "summary_stats_counters", [&](const JsonNode& c) {
    const std::string unit = c.required("unit").string();
    // With no sample Impala writes the value alone.
    const auto stat = [&](std::string_view key) {
      return value_text(c.member(key).present() ? c.member(key) : c.required("value"), unit);
    };
    out += fmt::format("{} - {}: (Avg: {} ; Min: {} ; Max: {} ; Number of samples: {})\n", inner,
                       c.required("counter_name").string(), stat("avg"), stat("min"), stat("max"),
                       c.required("num_of_samples").integer(0, 0));
  });
  each(node, "child_profiles", [&](const JsonNode& child) { render(child, depth + 1, out); });
}

}  // namespace

bool looks_like_json(std::string_view text) {
  for (char c : text) {
    if (std::isspace(static_cast<unsigned char>(c))) continue;
    return c == '{' || c == '[';
  }
  return false;
}

std::string render_json_profile(std::string_view text, const std::string& file) {
  const nlohmann::ordered_json doc = parse_json_text(text, file);
  Diagnostics diagnostics(file);
  const JsonNode root(&doc, "", &diagnostics);
  std::string out;
  // The web UI wraps the profile in "contents" beside its page's "__common__";
  // a list holds several profiles.
  const auto one = [&](const JsonNode& node) {
    const JsonNode contents = node.member("contents");
    render(contents.present() ? contents : node, 0, out);
  };
  if (root.is_array()) {
    for (std::size_t i = 0; i < root.size(); ++i) one(root.element(i));
  } else {
    one(root);
  }
  diagnostics.throw_if_errors();
  return out;
}

}  // namespace exsim
