#include "models/base/size.h"

#include <cctype>
#include <charconv>
#include <cmath>

#include <fmt/format.h>

namespace exsim {

std::optional<Bytes> parse_size(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
  size_t digits = 0;
  while (digits < text.size() &&
         (std::isdigit(static_cast<unsigned char>(text[digits])) || text[digits] == '.')) {
    ++digits;
  }
  if (digits == 0) return std::nullopt;
  double value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + digits, value);
  if (ec != std::errc() || end != text.data() + digits) return std::nullopt;

  std::string suffix;
  for (char c : text.substr(digits)) suffix += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (suffix.size() > 1 && (suffix.ends_with("IB") || suffix.ends_with("B"))) {
    suffix = suffix.substr(0, suffix.ends_with("IB") ? suffix.size() - 2 : suffix.size() - 1);
  }
  double multiple = 1;
  if (suffix.empty() || suffix == "B") {
    multiple = 1;
  } else if (suffix == "K") {
    multiple = static_cast<double>(kKiB);
  } else if (suffix == "M") {
    multiple = static_cast<double>(kMiB);
  } else if (suffix == "G") {
    multiple = static_cast<double>(kGiB);
  } else if (suffix == "T") {
    multiple = static_cast<double>(kGiB) * 1024.0;
  } else {
    return std::nullopt;
  }
  double bytes = std::round(value * multiple);
  if (!std::isfinite(bytes) || bytes > 9.0e18) return std::nullopt;
  return static_cast<Bytes>(bytes);
}

std::string format_size(Bytes bytes) {
  static constexpr const char* kSuffix[] = {"", "K", "M", "G", "T"};
  int unit = 0;
  while (unit < 4 && bytes != 0 && bytes % 1024 == 0) {
    bytes /= 1024;
    ++unit;
  }
  return fmt::format("{}{}", bytes, kSuffix[unit]);
}

std::string readable_size(Bytes bytes) {
  if (bytes < 1024 || bytes % 1024 == 0) return format_size(bytes);
  return human_bytes(static_cast<double>(bytes));
}

std::string human_bytes(double bytes) {
  static constexpr const char* kUnit[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  int unit = 0;
  double magnitude = std::fabs(bytes);
  while (unit < 6 && magnitude >= 1024.0) {
    magnitude /= 1024.0;
    bytes /= 1024.0;
    ++unit;
  }
  if (unit == 0) return fmt::format("{:.0f} B", bytes);
  return fmt::format("{:.{}f} {}", bytes, magnitude >= 100 ? 0 : (magnitude >= 10 ? 1 : 2), kUnit[unit]);
}

}  // namespace exsim
