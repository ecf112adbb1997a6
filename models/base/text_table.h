// Tables as text: aligned columns for a terminal, or GitHub-flavoured Markdown
// (CI comments, reports), from the same rows.
#ifndef EXSIM_MODELS_BASE_TEXT_TABLE_H_
#define EXSIM_MODELS_BASE_TEXT_TABLE_H_

#include <string>
#include <utility>
#include <vector>

namespace exsim {

class Table {
 public:
  explicit Table(std::vector<std::string> header) : header_(std::move(header)) {}
  void add_row(std::vector<std::string> cells) { rows_.push_back(std::move(cells)); }
  // The first column is left-aligned, the others right-aligned (numbers).
  std::string render() const;
  // A GitHub-flavoured Markdown table, numbers right-aligned, every cell
  // escaped (escape_markdown).
  std::string render_markdown() const;

 private:
  std::vector<std::string> header_;
  std::vector<std::vector<std::string>> rows_;
};

// Characters that would end a table cell or start Markdown markup, escaped
// (CommonMark allows a backslash before any ASCII punctuation).
std::string escape_markdown(const std::string& text);

}  // namespace exsim

#endif  // EXSIM_MODELS_BASE_TEXT_TABLE_H_
