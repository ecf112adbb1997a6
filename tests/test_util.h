// Helpers shared by the tests: scenarios from inline JSON.
#ifndef EXSIM_TESTS_TEST_UTIL_H_
#define EXSIM_TESTS_TEST_UTIL_H_

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/base/error.h"
#include "models/scenario/scenario_loader.h"

namespace exsim::test {

inline Scenario scenario_from(const std::string& json, const std::vector<std::string>& overrides = {}) {
  return parse_scenario(json, "test.json", overrides);
}

// `json` with the value at JSON pointer `pointer` set to the JSON text
// `value` (added if absent): an edit that says what it changes.
inline std::string with_value(const std::string& json, const std::string& pointer, const std::string& value) {
  nlohmann::ordered_json doc = nlohmann::ordered_json::parse(json);
  doc[nlohmann::ordered_json::json_pointer(pointer)] = nlohmann::ordered_json::parse(value);
  return doc.dump();
}

// `json` without the member at JSON pointer `pointer`.
inline std::string without_value(const std::string& json, const std::string& pointer) {
  nlohmann::ordered_json doc = nlohmann::ordered_json::parse(json);
  const nlohmann::ordered_json::json_pointer path(pointer);
  doc[path.parent_pointer()].erase(path.back());
  return doc.dump();
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
