// Helpers shared by the tests: scenarios from inline JSON.
#ifndef EXSIM_TESTS_TEST_UTIL_H_
#define EXSIM_TESTS_TEST_UTIL_H_

#include <string>
#include <vector>

#include "models/base/error.h"
#include "models/scenario/scenario_loader.h"

namespace exsim::test {

inline Scenario scenario_from(const std::string& json, const std::vector<std::string>& overrides = {}) {
  return parse_scenario(json, "test.json", overrides);
}

// The error text of a scenario that must fail to load ("" if it loads).
inline std::string load_error(const std::string& json, const std::vector<std::string>& overrides = {}) {
  try {
    scenario_from(json, overrides);
  } catch (const InputError& e) {
    return e.what();
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

}  // namespace exsim::test

#endif  // EXSIM_TESTS_TEST_UTIL_H_
