#include "models/impala/profile_json.h"

#include <cctype>
#include <cstdint>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "models/base/error.h"
#include "models/base/json_reader.h"

namespace exsim {
namespace {

using Json = nlohmann::ordered_json;

class Renderer {
 public:
  explicit Renderer(const std::string& file) : file_(file) {}

  void profile(const Json& node, const std::string& path, int depth) {
    if (!node.is_object() || !node.contains("profile_name") || !node["profile_name"].is_string()) {
      fail(path, "a profile: an object with a \"profile_name\"");
    }
    const std::string indent(static_cast<std::size_t>(2 * depth), ' ');
    const std::string inner = indent + "  ";
    const std::string name = node["profile_name"].get<std::string>();
    // The header carries the profile's TotalTime, as the text form's does.
    std::string total;
    for_each(node, "counters", path, [&](const Json& c, const std::string& at) {
      if (text(c, "counter_name", at) == "TotalTime") total = fmt::format("{}ns", integer(c, "value", at));
    });
    out_ += total.empty() ? fmt::format("{}{}:\n", indent, name) : fmt::format("{}{}:(Total: {})\n", indent, name, total);
    for_each(node, "info_strings", path, [&](const Json& i, const std::string& at) {
      // A value of several lines (the plan, the exec summary) keeps its lines.
      const std::string value = text(i, "value", at);
      std::size_t end = value.find('\n');
      out_ += fmt::format("{}{}: {}\n", inner, text(i, "key", at), value.substr(0, end));
      while (end != std::string::npos) {
        const std::size_t begin = end + 1;
        end = value.find('\n', begin);
        out_ += fmt::format("{}{}\n", inner, value.substr(begin, end == std::string::npos ? end : end - begin));
      }
    });
    for_each(node, "counters", path, [&](const Json& c, const std::string& at) {
      out_ += fmt::format("{} - {}: {}\n", inner, text(c, "counter_name", at), value(c, "value", text(c, "unit", at), at));
    });
    for_each(node, "summary_stats_counters", path, [&](const Json& c, const std::string& at) {
      const std::string unit = text(c, "unit", at);
      // With no sample Impala writes the value alone.
      const auto stat = [&](const char* key) { return value(c, c.contains(key) ? key : "value", unit, at); };
      out_ += fmt::format("{} - {}: (Avg: {} ; Min: {} ; Max: {} ; Number of samples: {})\n", inner,
                          text(c, "counter_name", at), stat("avg"), stat("min"), stat("max"),
                          integer(c, "num_of_samples", at));
    });
    for_each(node, "child_profiles", path, [&](const Json& child, const std::string& at) { profile(child, at, depth + 1); });
  }

  std::string take() { return std::move(out_); }

  [[noreturn]] void fail(const std::string& path, std::string_view expected) const {
    throw InputError({fmt::format("{}: {}: expected {} (an Impala JSON profile)", file_, path.empty() ? "/" : path,
                                  expected)});
  }

 private:
  template <typename F>
  void for_each(const Json& node, const char* key, const std::string& path, F&& each) {
    if (!node.contains(key)) return;
    const Json& list = node[key];
    const std::string at = path + "/" + key;
    if (!list.is_array()) fail(at, "a list");
    for (std::size_t i = 0; i < list.size(); ++i) each(list[i], fmt::format("{}/{}", at, i));
  }

  std::string text(const Json& node, const char* key, const std::string& path) const {
    if (!node.is_object() || !node.contains(key) || !node[key].is_string()) fail(path + "/" + key, "a string");
    return node[key].get<std::string>();
  }

  std::int64_t integer(const Json& node, const char* key, const std::string& path) const {
    if (!node.is_object() || !node.contains(key) || !node[key].is_number()) fail(path + "/" + key, "a number");
    return node[key].is_number_integer() ? node[key].get<std::int64_t>() : static_cast<std::int64_t>(node[key].get<double>());
  }

  // A value in the units the text form prints it in: times in nanoseconds
  // (or the unit the profile gives), everything else as the number itself.
  std::string value(const Json& node, const char* key, const std::string& unit, const std::string& path) const {
    if (!node.is_object() || !node.contains(key) || !node[key].is_number()) fail(path + "/" + key, "a number");
    const Json& v = node[key];
    const std::string number = v.is_number_integer() ? std::to_string(v.get<std::int64_t>()) : fmt::format("{}", v.get<double>());
    if (unit == "TIME_NS") return number + "ns";
    if (unit == "TIME_US") return number + "us";
    if (unit == "TIME_MS") return number + "ms";
    if (unit == "TIME_S") return number + "s";
    return number;
  }

  const std::string& file_;
  std::string out_;
};

}  // namespace

bool looks_like_json(std::string_view text) {
  for (char c : text) {
    if (std::isspace(static_cast<unsigned char>(c))) continue;
    return c == '{' || c == '[';
  }
  return false;
}

std::string render_json_profile(std::string_view text, const std::string& file) {
  const Json doc = parse_json_text(text, file);
  Renderer renderer(file);
  // The web UI wraps the profile in "contents" beside its page's "__common__";
  // a list holds several profiles.
  const auto one = [&](const Json& node, const std::string& path) {
    if (node.is_object() && node.contains("contents")) {
      renderer.profile(node["contents"], path + "/contents", 0);
    } else {
      renderer.profile(node, path, 0);
    }
  };
  if (doc.is_array()) {
    for (std::size_t i = 0; i < doc.size(); ++i) one(doc[i], fmt::format("/{}", i));
  } else {
    one(doc, "");
  }
  return renderer.take();
}

}  // namespace exsim
