// The lines of a text, each without its end ("\n" or "\r\n"), numbered from 1:
// how the profile readers walk a file, so that their errors name the line.
#ifndef EXSIM_MODELS_BASE_TEXT_LINES_H_
#define EXSIM_MODELS_BASE_TEXT_LINES_H_

#include <string_view>

namespace exsim {

template <typename Visit>
void for_each_line(std::string_view text, Visit visit) {
  int number = 0;
  while (!text.empty()) {
    const std::size_t newline = text.find('\n');
    std::string_view line = text.substr(0, newline);
    text.remove_prefix(newline == std::string_view::npos ? text.size() : newline + 1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    visit(line, ++number);
  }
}

}  // namespace exsim

#endif  // EXSIM_MODELS_BASE_TEXT_LINES_H_
