#include "models/base/json_reader.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "models/base/error.h"

namespace exsim {

// JSON pointer escaping (RFC 6901): '~' -> "~0", '/' -> "~1".
std::string escape_pointer_token(std::string_view token) {
  std::string out;
  for (char c : token) {
    if (c == '~') {
      out += "~0";
    } else if (c == '/') {
      out += "~1";
    } else {
      out += c;
    }
  }
  return out;
}

namespace {

size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t above = row[j];
      size_t cost = (std::tolower(a[i - 1]) == std::tolower(b[j - 1])) ? 0 : 1;
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + cost});
      diagonal = above;
    }
  }
  return row[b.size()];
}

}  // namespace

void Diagnostics::error(std::string_view pointer, std::string_view message) {
  // Whether `outer` is `inner` or one of its ancestors, as JSON pointers.
  auto within = [](std::string_view inner, std::string_view outer) {
    return inner.substr(0, outer.size()) == outer && (inner.size() == outer.size() || inner[outer.size()] == '/');
  };
  std::string origin;
  for (const auto& [set, assignment] : overridden_) {
    if (within(pointer, set)) {
      origin = fmt::format(" (set by --set {})", assignment);
    } else if (origin.empty()) {
      // A check across keys reports at their object (groups against hosts) or
      // at a sibling (a budget's min against the max just set): name the --set too.
      const std::string_view parent = std::string_view(set).substr(0, std::string_view(set).rfind('/'));
      if (within(set, pointer) || (!parent.empty() && within(pointer, parent))) {
        origin = fmt::format(" (with --set {})", assignment);
      }
    }
  }
  errors_.push_back(fmt::format("{}:{}: {}{}", file_, pointer.empty() ? "/" : pointer, message, origin));
}

void Diagnostics::throw_if_errors() const {
  if (!errors_.empty()) throw InputError(errors_);
}

std::string closest_name(std::string_view name, const std::vector<std::string>& candidates) {
  std::string best;
  size_t best_distance = std::max<size_t>(2, name.size() / 3) + 2;  // accept up to 1 + len/3 edits
  for (const auto& candidate : candidates) {
    size_t d = edit_distance(name, candidate);
    if (d < best_distance) {
      best_distance = d;
      best = candidate;
    }
  }
  return best;
}

bool JsonNode::is_object() const { return present() && value_->is_object(); }
bool JsonNode::is_array() const { return present() && value_->is_array(); }
bool JsonNode::is_string() const { return present() && value_->is_string(); }
bool JsonNode::is_number() const { return present() && value_->is_number(); }

JsonNode JsonNode::member(std::string_view key) const {
  std::string child = pointer_ + "/" + escape_pointer_token(key);
  if (!is_object()) return JsonNode(nullptr, std::move(child), diagnostics_);
  auto it = value_->find(key);
  return JsonNode(it == value_->end() ? nullptr : &*it, std::move(child), diagnostics_);
}

JsonNode JsonNode::required(std::string_view key) const {
  JsonNode child = member(key);
  if (!child.present() && is_object()) error(fmt::format("missing required key '{}'", key));
  return child;
}

JsonNode JsonNode::element(size_t index) const {
  std::string child = fmt::format("{}/{}", pointer_, index);
  if (!is_array() || index >= value_->size()) return JsonNode(nullptr, std::move(child), diagnostics_);
  return JsonNode(&(*value_)[index], std::move(child), diagnostics_);
}

size_t JsonNode::size() const { return present() && (value_->is_array() || value_->is_object()) ? value_->size() : 0; }

std::vector<std::string> JsonNode::keys() const {
  std::vector<std::string> out;
  if (is_object()) {
    for (auto it = value_->begin(); it != value_->end(); ++it) out.push_back(it.key());
  }
  return out;
}

bool JsonNode::expect_object() const {
  if (is_object()) return true;
  if (present()) error(fmt::format("expected an object, {}", describe_value()));
  return false;
}

bool JsonNode::expect_array() const {
  if (is_array()) return true;
  if (present()) error(fmt::format("expected an array, {}", describe_value()));
  return false;
}

void JsonNode::reject_unknown_keys(std::initializer_list<std::string_view> known) const {
  reject_unknown_keys(std::span<const std::string_view>(known.begin(), known.size()));
}

void JsonNode::reject_unknown_keys(std::span<const std::string_view> known) const {
  if (!is_object()) return;
  std::vector<std::string> names(known.begin(), known.end());
  for (auto it = value_->begin(); it != value_->end(); ++it) {
    if (std::find(names.begin(), names.end(), it.key()) != names.end()) continue;
    std::string hint = closest_name(it.key(), names);
    std::string pointer = pointer_ + "/" + escape_pointer_token(it.key());
    if (hint.empty()) {
      std::string list;
      for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
      diagnostics_->error(pointer, fmt::format("unknown key '{}' (known keys: {})", it.key(), list));
    } else {
      diagnostics_->error(pointer, fmt::format("unknown key '{}' (did you mean '{}'?)", it.key(), hint));
    }
  }
}

std::string JsonNode::string(std::string_view fallback) const {
  if (is_string()) return value_->get<std::string>();
  if (present()) error(fmt::format("expected a string, {}", describe_value()));
  return std::string(fallback);
}

bool JsonNode::boolean(bool fallback) const {
  if (!present()) return fallback;
  if (value_->is_boolean()) return value_->get<bool>();
  error(fmt::format("expected true or false, {}", describe_value()));
  return fallback;
}

double JsonNode::number(double fallback, double min, bool min_exclusive, double max) const {
  if (!present()) return fallback;
  if (!value_->is_number()) {
    error(fmt::format("expected a number, {}", describe_value()));
    return fallback;
  }
  double v = value_->get<double>();
  bool low = min_exclusive ? !(v > min) : !(v >= min);
  if (!std::isfinite(v) || low || v > max) {
    std::string range = std::isinf(max) ? fmt::format("{} {}", min_exclusive ? ">" : ">=", min)
                                        : fmt::format("in {}{}, {}]", min_exclusive ? "(" : "[", min, max);
    error(fmt::format("expected a number {}, {}", range, describe_value()));
    return fallback;
  }
  return v;
}

std::int64_t JsonNode::integer(std::int64_t fallback, std::int64_t min, std::int64_t max) const {
  if (!present()) return fallback;
  bool integral = value_->is_number_integer() ||
                  (value_->is_number_float() && std::nearbyint(value_->get<double>()) == value_->get<double>() &&
                   std::fabs(value_->get<double>()) < 9.0e18);
  if (!integral) {
    error(fmt::format("expected an integer, {}", describe_value()));
    return fallback;
  }
  // Non-negative integers are stored unsigned; one above int64's range is out of range too.
  const bool too_big =
      value_->is_number_unsigned() && value_->get<std::uint64_t>() > static_cast<std::uint64_t>(max);
  std::int64_t v = value_->is_number_integer() && !too_big ? value_->get<std::int64_t>()
                                                           : static_cast<std::int64_t>(value_->get<double>());
  if (too_big || v < min || v > max) {
    // ">= min" unless the value is beyond int64 itself, where that would read as satisfied.
    std::string range = max == std::numeric_limits<std::int64_t>::max() && !too_big
                            ? fmt::format(">= {}", min)
                            : fmt::format("in [{}, {}]", min, max);
    error(fmt::format("expected an integer {}, {}", range, describe_value()));
    return fallback;
  }
  return v;
}

Bytes JsonNode::size(Bytes fallback, Bytes min, Bytes max) const {
  if (!present()) return fallback;
  std::optional<Bytes> bytes;
  if (value_->is_number()) {
    double v = value_->get<double>();
    if (std::isfinite(v) && v >= 0 && v < 9.0e18 && std::nearbyint(v) == v) bytes = static_cast<Bytes>(v);
  } else if (value_->is_string()) {
    bytes = parse_size(value_->get<std::string>());
  }
  if (!bytes) {
    error(fmt::format("expected a size in bytes (e.g. 16384, \"16K\", \"4M\"), {}", describe_value()));
    return fallback;
  }
  if (*bytes < min || *bytes > max) {
    error(*bytes < min ? fmt::format("expected a size >= {} bytes, {}", min, describe_value())
                       : fmt::format("expected a size <= {}, {}", format_size(max), describe_value()));
    return fallback;
  }
  return *bytes;
}

int JsonNode::choice(std::span<const std::string_view> names, int fallback) const {
  if (!present()) return fallback;
  std::vector<std::string> list(names.begin(), names.end());
  std::string all;
  for (const auto& n : list) all += (all.empty() ? "" : " | ") + n;
  if (!value_->is_string()) {
    error(fmt::format("expected one of {}, {}", all, describe_value()));
    return fallback;
  }
  auto text = value_->get<std::string>();
  for (size_t i = 0; i < list.size(); ++i) {
    if (list[i] == text) return static_cast<int>(i);
  }
  std::string hint = closest_name(text, list);
  error(fmt::format("expected one of {}, got \"{}\"{}", all, text,
                    hint.empty() ? "" : fmt::format(" (did you mean '{}'?)", hint)));
  return fallback;
}

void JsonNode::error(std::string_view message) const { diagnostics_->error(pointer_, message); }

std::string JsonNode::describe_value() const {
  if (!present()) return "got nothing";
  switch (value_->type()) {
    case nlohmann::ordered_json::value_t::object:
      return "got an object";
    case nlohmann::ordered_json::value_t::array:
      return "got an array";
    case nlohmann::ordered_json::value_t::null:
      return "got null";
    case nlohmann::ordered_json::value_t::boolean:
      return fmt::format("got {}", value_->get<bool>());
    default: {
      std::string text = value_->dump();
      if (text.size() > 60) text = text.substr(0, 57) + "...";
      return "got " + text;
    }
  }
}

std::vector<std::pair<std::size_t, std::string_view>> json_lines(std::string_view text) {
  std::vector<std::pair<std::size_t, std::string_view>> lines;
  std::size_t number = 0;
  while (!text.empty()) {
    const std::size_t end = std::min(text.find('\n'), text.size());
    std::string_view line = text.substr(0, end);
    text.remove_prefix(std::min(end + 1, text.size()));
    ++number;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.find_first_not_of(" \t") != std::string_view::npos) lines.emplace_back(number, line);
  }
  return lines;
}

// Reading JSON text: syntax errors as FILE:LINE:COLUMN, duplicate keys as errors.
namespace {

// Finds keys given twice in one object, which JSON parsers resolve silently
// (the last wins): two policies of the same name must not pass unnoticed.
class DuplicateKeyFinder {
 public:
  bool operator()(int /*depth*/, nlohmann::ordered_json::parse_event_t event, nlohmann::ordered_json& value) {
    using Event = nlohmann::ordered_json::parse_event_t;
    switch (event) {
      case Event::object_start:
      case Event::array_start:
        enter_value();
        frames_.push_back({event == Event::array_start, -1, {}, {}});
        break;
      case Event::object_end:
      case Event::array_end:
        frames_.pop_back();
        break;
      case Event::key: {
        Frame& frame = frames_.back();
        frame.key = value.get<std::string>();
        if (!frame.keys.insert(frame.key).second) duplicates_.push_back(pointer() + ": duplicate key '" + frame.key + "'");
        break;
      }
      case Event::value:
        enter_value();
        break;
    }
    return true;
  }
  const std::vector<std::string>& duplicates() const { return duplicates_; }
  // The JSON pointer of the value being read when the parser stopped (in an
  // array, the element after the last one entered).
  std::string reading() const { return pointer(/*next_element=*/true); }

 private:
  struct Frame {
    bool array;
    int index;
    std::string key;
    std::set<std::string> keys;
  };
  void enter_value() {
    if (!frames_.empty() && frames_.back().array) ++frames_.back().index;
  }
  std::string pointer(bool next_element = false) const {
    std::string p;
    for (std::size_t i = 0; i < frames_.size(); ++i) {
      const Frame& f = frames_[i];
      const bool next = next_element && f.array && i + 1 == frames_.size();
      p += '/';
      p += f.array ? std::to_string(f.index + (next ? 1 : 0)) : escape_pointer_token(f.key);
    }
    return p;
  }
  std::vector<Frame> frames_;
  std::vector<std::string> duplicates_;
};

}  // namespace

nlohmann::ordered_json parse_json_text(std::string_view text, const std::string& file) {
  DuplicateKeyFinder finder;
  try {
    auto document = nlohmann::ordered_json::parse(text, std::ref(finder));
    if (!finder.duplicates().empty()) {
      std::vector<std::string> messages;
      for (const auto& d : finder.duplicates()) messages.push_back(file + ":" + d);
      throw InputError(messages);
    }
    return document;
  } catch (const nlohmann::ordered_json::out_of_range& e) {
    // A number no double holds (1e999): the parser names the number, not where it is.
    std::string what = e.what();
    const auto detail = what.find("number overflow parsing");
    throw InputError({fmt::format("{}:{}: {}; expected a number of at most about 1.8e308", file, finder.reading(),
                                     detail == std::string::npos ? what : what.substr(detail))});
  } catch (const nlohmann::ordered_json::parse_error& e) {
    // Turn the byte offset into line:column, which editors understand.
    size_t line = 1, column = 1;
    for (size_t i = 0; i + 1 < e.byte && i < text.size(); ++i) {
      if (text[i] == '\n') {
        ++line;
        column = 1;
      } else {
        ++column;
      }
    }
    std::string what = e.what();
    auto detail = what.find("syntax error");
    throw InputError({fmt::format("{}:{}:{}: invalid JSON: {}", file, line, column,
                                     detail == std::string::npos ? what : what.substr(detail))});
  }
}

std::string read_text_file(const std::string& path, const std::string& what) {
  if (std::filesystem::is_directory(path)) {
    throw InputError({fmt::format("{}: is a directory, not {}", path, what)});
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError({fmt::format("{}: cannot open {}: {}", path, what, std::strerror(errno))});
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

void for_each_object(const JsonNode& node, std::string_view key, const std::function<void(const JsonNode&)>& read) {
  const JsonNode list = node.required(key);
  if (!list.present() || !list.expect_array()) return;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const JsonNode element = list.element(i);
    if (element.expect_object()) read(element);
  }
}

}  // namespace exsim
