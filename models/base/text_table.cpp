#include "models/base/text_table.h"

#include <algorithm>
#include <string_view>

#include <fmt/format.h>

namespace exsim {

std::string Table::render() const {
  std::vector<size_t> width(header_.size(), 0);
  auto measure = [&](const std::vector<std::string>& row) {
    for (size_t i = 0; i < row.size() && i < width.size(); ++i) width[i] = std::max(width[i], row[i].size());
  };
  measure(header_);
  for (const auto& row : rows_) measure(row);
  auto line = [&](const std::vector<std::string>& row) {
    std::string out;
    for (size_t i = 0; i < width.size(); ++i) {
      const std::string& cell = i < row.size() ? row[i] : std::string();
      if (i > 0) out += "  ";
      out += i == 0 ? fmt::format("{:<{}}", cell, width[i]) : fmt::format("{:>{}}", cell, width[i]);
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out + "\n";
  };
  std::string text = line(header_);
  size_t total = 0;
  for (size_t w : width) total += w;
  text += std::string(total + 2 * (width.size() - 1), '-') + "\n";
  for (const auto& row : rows_) text += line(row);
  return text;
}

std::string Table::render_markdown() const {
  auto line = [](const std::vector<std::string>& row) {
    std::string out = "|";
    for (const auto& cell : row) {
      out += ' ';
      out += escape_markdown(cell);
      out += " |";
    }
    return out + "\n";
  };
  std::string text = line(header_) + "|";
  for (size_t i = 0; i < header_.size(); ++i) text += i == 0 ? " --- |" : " ---: |";
  text += "\n";
  for (const auto& row : rows_) text += line(row);
  return text;
}

std::string escape_markdown(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (std::string_view("\\`*_[]<>|").find(c) != std::string_view::npos) out += '\\';
    out += c;
  }
  return out;
}

}  // namespace exsim
