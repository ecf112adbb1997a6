// What `exsim diff` compares: two results files' policies, figure by figure
// (wall-clock, RPCs, bytes, what bounded them, memory), overall and per
// exchange, as rows of one table.
#ifndef EXSIM_CLI_RESULTS_DIFF_H_
#define EXSIM_CLI_RESULTS_DIFF_H_

#include <functional>
#include <string>
#include <vector>

#include "models/base/text_table.h"
#include "models/results/results.h"

namespace exsim::cli {

// A results file as simulate and run write it: an array of results, each
// checked with its JSON pointer named; InputError otherwise.
std::vector<RunResult> read_results(const std::string& path);

struct DiffRows {
  Table table{{"policy", "exchange", "figure", "A", "B", "change"}};
  bool all = false;  // every figure, not only those that changed
  int changed = 0;
  // A figure, shown by `shown`: a row when it changed, or with `all`.
  void add(const std::string& policy, const std::string& exchange, const std::string& figure, double a, double b,
           const std::function<std::string(double)>& shown);
  void add_words(const std::string& policy, const std::string& exchange, const std::string& figure,
                 const std::string& a, const std::string& b);
};

// One policy's results in A and in B, overall and per exchange (matched by
// query and id; one missing on either side is said so).
void compare(const RunResult& a, const RunResult& b, DiffRows& rows);

}  // namespace exsim::cli

#endif  // EXSIM_CLI_RESULTS_DIFF_H_
