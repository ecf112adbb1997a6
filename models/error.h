// Errors that reach the user. Each kind maps to its own exit code in cli/:
// ScenarioError and UsageError mean bad input (exit 2); anything else is a bug.
#ifndef EXSIM_MODELS_ERROR_H_
#define EXSIM_MODELS_ERROR_H_

#include <stdexcept>
#include <string>
#include <vector>

namespace exsim {

// One or more problems found in a scenario or profile file. Every message names
// the file and the JSON pointer of the offending value:
//   scenarios/x.json:/workload/queries/0/exchanges/2/rows: expected a number > 0, got -5
class ScenarioError : public std::runtime_error {
 public:
  explicit ScenarioError(std::vector<std::string> messages);
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

#endif  // EXSIM_MODELS_ERROR_H_
