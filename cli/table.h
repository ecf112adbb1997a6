// Plain-text tables with aligned columns, for terminal output.
#ifndef EXSIM_CLI_TABLE_H_
#define EXSIM_CLI_TABLE_H_

#include <string>
#include <vector>

namespace exsim::cli {

class Table {
 public:
  explicit Table(std::vector<std::string> header) : header_(std::move(header)) {}
  void add_row(std::vector<std::string> cells) { rows_.push_back(std::move(cells)); }
  // The first column is left-aligned, the others right-aligned (numbers).
  std::string render() const;
  // A GitHub-flavoured Markdown table, numbers right-aligned.
  std::string render_markdown() const;

 private:
  std::vector<std::string> header_;
  std::vector<std::vector<std::string>> rows_;
};

}  // namespace exsim::cli

#endif  // EXSIM_CLI_TABLE_H_
