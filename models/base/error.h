// Errors that reach the user. Each kind maps to its own exit code in cli/:
// InputError and UsageError mean bad input (exit 2); anything else is a bug.
#ifndef EXSIM_MODELS_BASE_ERROR_H_
#define EXSIM_MODELS_BASE_ERROR_H_

#include <stdexcept>
#include <string>
#include <vector>

namespace exsim {

// One or more problems found in a file the user gave: a scenario, a costs
// profile, results, a sweep, a hosts file. Every message names the file and
// where in it (a JSON pointer, or a line):
//   scenarios/x.json:/workload/queries/0/exchanges/2/rows: expected a number > 0, got -5
class InputError : public std::runtime_error {
 public:
  explicit InputError(std::vector<std::string> messages);
  const std::vector<std::string>& messages() const { return messages_; }

 private:
  std::vector<std::string> messages_;
};

// A bad command line: unknown flag, malformed --set, unknown policy name.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace exsim

#endif  // EXSIM_MODELS_BASE_ERROR_H_
