#include "models/impala/impala_profile.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <functional>

#include <fmt/format.h>

#include "models/base/error.h"
#include "models/base/text_lines.h"

namespace exsim {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// A non-negative decimal number at the front of `s`, consumed.
std::optional<double> take_number(std::string_view& s) {
  double value = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value, std::chars_format::fixed);
  if (ec != std::errc() || !std::isfinite(value) || value < 0) return std::nullopt;
  s.remove_prefix(static_cast<std::size_t>(end - s.data()));
  return value;
}

// Impala prints exact values in parentheses after the pretty one: "3.63 GB (3902930720)".
std::optional<double> exact_in_parentheses(std::string_view s) {
  if (s.size() < 3 || s.back() != ')') return std::nullopt;
  const std::size_t open = s.rfind('(');
  if (open == std::string_view::npos) return std::nullopt;
  std::string_view inside = s.substr(open + 1, s.size() - open - 2);
  std::uint64_t value = 0;
  const auto [end, ec] = std::from_chars(inside.data(), inside.data() + inside.size(), value);
  if (ec != std::errc() || end != inside.data() + inside.size()) return std::nullopt;
  return static_cast<double>(value);
}

// "<number> <unit>" with the unit one of `units` (or none: a multiplier of 1).
std::optional<double> number_with_unit(std::string_view s, std::initializer_list<std::pair<std::string_view, double>> units) {
  s = trim(s);
  const auto number = take_number(s);
  if (!number) return std::nullopt;
  const std::string_view unit = trim(s);
  if (unit.empty()) return *number;
  for (const auto& [name, scale] : units) {
    if (unit == name) return *number * scale;
  }
  return std::nullopt;
}

bool is_instance_value(std::string_view content) {
  if (content.empty() || content.front() != '[') return false;
  const std::size_t close = content.find(']');
  if (close == std::string_view::npos || close < 2) return false;
  for (std::size_t i = 1; i < close; ++i) {
    if (!std::isdigit(static_cast<unsigned char>(content[i]))) return false;
  }
  return trim(content.substr(close + 1)).substr(0, 2) == "- ";
}

bool is_header(std::string_view content) {
  return content.find(":(Total:") != std::string_view::npos || (content.size() > 1 && content.back() == ':');
}

}  // namespace

// An aggregated section's counter gives the instances' mean, least and largest
// value (and in the extended layout percentiles): "mean=2.17 KB (2227)
// min=1.89 KB (1934) max=2.72 KB (2788)". Each field's text runs to the next
// " name=".
std::string_view aggregate_field(std::string_view text, std::string_view field) {
  text = trim(text);
  if (text.substr(0, 5) != "mean=") return text;
  std::size_t at = 0;
  while (at != std::string_view::npos) {
    const std::size_t equals = text.find('=', at);
    if (equals == std::string_view::npos) break;
    const std::size_t next = text.find('=', equals + 1);
    // The field's text ends at the space before the next name.
    const std::size_t end = next == std::string_view::npos ? text.size() : text.rfind(' ', next);
    if (text.substr(at, equals - at) == field) return trim(text.substr(equals + 1, end - equals - 1));
    at = end == text.size() ? std::string_view::npos : end + 1;
  }
  return {};
}

std::optional<double> parse_profile_bytes(std::string_view text) {
  text = aggregate_field(text, "mean");
  if (auto exact = exact_in_parentheses(text)) return exact;
  // PrettyPrinter's byte units are binary (util/pretty-printer.h).
  return number_with_unit(text, {{"B", 1.0},
                                 {"KB", 1024.0},
                                 {"MB", 1024.0 * 1024},
                                 {"GB", 1024.0 * 1024 * 1024},
                                 {"TB", 1024.0 * 1024 * 1024 * 1024},
                                 {"PB", 1024.0 * 1024 * 1024 * 1024 * 1024}});
}

std::optional<double> parse_profile_count(std::string_view text) {
  text = aggregate_field(text, "mean");
  if (auto exact = exact_in_parentheses(text)) return exact;
  // Unit counts are decimal: K, M, B (billions), written right after the number.
  return number_with_unit(text, {{"K", 1e3}, {"M", 1e6}, {"B", 1e9}});
}

std::optional<double> parse_profile_time_ns(std::string_view text) {
  text = aggregate_field(text, "mean");
  if (text.empty()) return std::nullopt;
  double total = 0;
  while (!text.empty()) {
    const auto number = take_number(text);
    if (!number) return std::nullopt;
    std::size_t letters = 0;
    while (letters < text.size() && std::isalpha(static_cast<unsigned char>(text[letters]))) ++letters;
    const std::string_view unit = text.substr(0, letters);
    text.remove_prefix(letters);
    if (unit.empty()) {
      if (!text.empty() || total != 0) return std::nullopt;
      return *number == 0 ? std::optional<double>(0) : std::nullopt;  // a bare "0"
    }
    if (unit == "h") total += *number * 3600e9;
    else if (unit == "m") total += *number * 60e9;
    else if (unit == "s") total += *number * 1e9;
    else if (unit == "ms") total += *number * 1e6;
    else if (unit == "us") total += *number * 1e3;
    else if (unit == "ns") total += *number;
    else return std::nullopt;
  }
  return total;
}

std::optional<ProfileStat> parse_profile_stat(std::string_view text) {
  text = trim(text);
  if (text.size() < 2 || text.front() != '(' || text.back() != ')') return std::nullopt;
  text = text.substr(1, text.size() - 2);
  std::optional<double> mean, samples;
  while (!text.empty()) {
    const std::size_t semicolon = text.find(';');
    const std::string_view part = trim(text.substr(0, semicolon));
    text.remove_prefix(semicolon == std::string_view::npos ? text.size() : semicolon + 1);
    const std::size_t colon = part.find(':');
    if (colon == std::string_view::npos) return std::nullopt;
    const std::string_view name = trim(part.substr(0, colon)), value = trim(part.substr(colon + 1));
    if (name == "Avg") mean = parse_profile_time_ns(value);
    if (name == "Number of samples") samples = parse_profile_count(value);
  }
  if (!mean || !samples) return std::nullopt;
  return ProfileStat{*mean, *samples};
}

const ProfileEntry* ProfileSection::counter(std::string_view name) const {
  for (const auto& entry : counters) {
    if (entry.name == name) return &entry;
  }
  return nullptr;
}

const ProfileEntry* ProfileSection::info(std::string_view name) const {
  for (const auto& entry : infos) {
    if (entry.name == name) return &entry;
  }
  return nullptr;
}

std::optional<double> ProfileSection::total_ns(const std::string& file) const {
  const std::size_t at = header.find("(Total: ");
  if (at == std::string::npos) return std::nullopt;
  const std::size_t begin = at + 8;
  const std::size_t end = header.find_first_of(",)", begin);
  const std::string value = header.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
  const auto ns = parse_profile_time_ns(value);
  if (!ns) {
    throw InputError({fmt::format("{}:{}: section '{}': expected a total time such as '20s344ms', found '{}'", file,
                                    line, title, value)});
  }
  return ns;
}

ImpalaProfile ImpalaProfile::parse(std::string_view text, std::string file) {
  ImpalaProfile profile;
  profile.file_ = std::move(file);
  profile.root_ = std::make_unique<ProfileSection>();
  profile.root_->indent = -1;
  std::vector<ProfileSection*> stack{profile.root_.get()};
  int sections = 0;
  bool in_plan = false, last_info_was_plan = false;
  for_each_line(text, [&](std::string_view raw, int number) {
    profile.lines_.emplace_back(raw);
    const std::string_view content = trim(raw);
    if (content.empty()) return;
    const int indent = static_cast<int>(raw.find_first_not_of(" \t"));
    // The plan ("Plan:" and the text between two rules of dashes) and the
    // ExecSummary table are written from the first column inside their query:
    // text for plan_kind, not sections; only a "Query (id=...)" there starts a new
    // profile.
    const bool rule = content.find_first_not_of('-') == std::string_view::npos;
    if (in_plan) {
      in_plan = !rule;
      return;
    }
    if (rule && last_info_was_plan) {
      in_plan = true;
      return;
    }
    last_info_was_plan = content == "Plan:";
    // The extended aggregated layout follows a counter with each instance's
    // value, "[3]   - RowsSent: 158 (158)", written left of the counters: skipped
    // (the counter's mean stands for them), and never closing the section.
    if (is_instance_value(content)) return;
    if (indent == 0 && stack.size() > 1 && stack[1]->title.substr(0, 10) == "Query (id=" &&
        content.substr(0, 10) != "Query (id=") {
      return;
    }
    // Impala 4 and later write a fragment's "Instances:" list at the fragment's
    // own indent, below its header and info lines: it belongs to the fragment.
    const bool fragment_instances = content == "Instances:" && stack.back()->indent == indent &&
                                    stack.back()->title.find("Fragment ") != std::string::npos;
    while (!fragment_instances && stack.back()->indent >= indent) stack.pop_back();
    ProfileSection& parent = *stack.back();
    if (content.substr(0, 2) == "- ") {
      const std::string_view body = content.substr(2);
      const std::size_t colon = body.find(':');
      if (colon == std::string_view::npos) return;  // not a counter line Impala writes
      parent.counters.push_back({std::string(trim(body.substr(0, colon))), std::string(trim(body.substr(colon + 1))), number});
    } else if (is_header(content)) {
      auto section = std::make_unique<ProfileSection>();
      const std::size_t total = content.find(":(Total:");
      section->title = std::string(total != std::string_view::npos ? content.substr(0, total)
                                                                    : content.substr(0, content.size() - 1));
      section->header = std::string(content);
      section->line = number;
      section->indent = indent;
      section->parent = &parent;
      stack.push_back(section.get());
      parent.children.push_back(std::move(section));
      ++sections;
    } else if (const std::size_t colon = content.find(':'); colon != std::string_view::npos) {
      parent.infos.push_back({std::string(trim(content.substr(0, colon))), std::string(trim(content.substr(colon + 1))), number});
    }
  });
  if (sections == 0) {
    throw InputError({fmt::format("{}: expected an Impala query profile in text form (sections such as "
                                    "'Averaged Fragment F01:(Total: ...)'), found none",
                                    profile.file_)});
  }
  return profile;
}

std::vector<const ProfileSection*> ImpalaProfile::sections() const {
  std::vector<const ProfileSection*> all;
  std::function<void(const ProfileSection&)> walk = [&](const ProfileSection& s) {
    for (const auto& child : s.children) {
      all.push_back(child.get());
      walk(*child);
    }
  };
  walk(*root_);
  return all;
}

namespace {

double checked(const std::optional<double>& value, const std::string& file, const ProfileEntry& entry,
               std::string_view expected) {
  if (!value) {
    throw InputError({fmt::format("{}:{}: counter {}: expected {}, found '{}'", file, entry.line, entry.name, expected,
                                    entry.value)});
  }
  return *value;
}

}  // namespace

double ImpalaProfile::bytes(const ProfileEntry& entry) const {
  return checked(parse_profile_bytes(entry.value), file_, entry, "a byte size such as '3.63 GB (3902930720)'");
}

double ImpalaProfile::bytes(const ProfileEntry& entry, std::string_view field) const {
  return checked(parse_profile_bytes(aggregate_field(entry.value, field)), file_, entry,
                 fmt::format("a byte size such as '3.63 GB (3902930720)' as its {}", field));
}

ProfileStat ImpalaProfile::stat(const ProfileEntry& entry) const {
  const auto value = parse_profile_stat(entry.value);
  if (!value) {
    throw InputError({fmt::format("{}:{}: counter {}: expected a statistic such as '(Avg: 98.322us ; Min: 33.531us ; "
                                  "Max: 299.588us ; Number of samples: 204)', found '{}'",
                                  file_, entry.line, entry.name, entry.value)});
  }
  return *value;
}

double ImpalaProfile::count(const ProfileEntry& entry) const {
  return checked(parse_profile_count(entry.value), file_, entry, "a count such as '402.00K (402000)'");
}

double ImpalaProfile::time_ns(const ProfileEntry& entry) const {
  return checked(parse_profile_time_ns(entry.value), file_, entry, "a time such as '19s771ms' or '494.783ms'");
}

}  // namespace exsim
