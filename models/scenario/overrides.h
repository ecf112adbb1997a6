// --set KEY=VALUE: change any scenario value by its dotted path before the
// scenario is validated, e.g. "mt_dop=8", "policies.16K.in_flight=2",
// "policies.*.buffer.flat=64K" ('*' matches every member or element),
// "workload.queries.0.repeat=3". VALUE is read as JSON when it parses as JSON,
// else as a string.
#ifndef EXSIM_MODELS_SCENARIO_OVERRIDES_H_
#define EXSIM_MODELS_SCENARIO_OVERRIDES_H_

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace exsim {

// Returns the JSON pointer of every value set. Throws UsageError when the
// assignment is malformed or its path matches nothing.
std::vector<std::string> apply_override(nlohmann::ordered_json& document, std::string_view assignment);

// An override's VALUE as apply_override reads it: JSON when it parses (8, 0.6,
// true), else the text as a string ("64K").
nlohmann::ordered_json override_value(std::string_view text);

}  // namespace exsim

#endif  // EXSIM_MODELS_SCENARIO_OVERRIDES_H_
