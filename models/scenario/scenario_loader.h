// Scenario files in, validated Scenario out (spec: shared scenario-format.md).
// Every problem found is reported at once in a InputError naming the file
// and the JSON pointer; nothing is read half-way.
#ifndef EXSIM_MODELS_SCENARIO_SCENARIO_LOADER_H_
#define EXSIM_MODELS_SCENARIO_SCENARIO_LOADER_H_

#include <string>
#include <string_view>
#include <vector>

#include "models/scenario/scenario.h"

namespace exsim {

// Reads, applies `overrides` ("KEY=VALUE", see overrides.h), validates.
Scenario load_scenario(const std::string& path, const std::vector<std::string>& overrides = {});

// The text of a scenario file; InputError naming the file when it cannot be read.
std::string read_scenario_file(const std::string& path);

// Whether a scenario may name a file for the loader to read (its costs
// profile). An agent refuses: what it runs arrives from a coordinator, which
// inlines the files first (with_costs_inlined), so that no one who can reach
// an agent makes it read a path of its choosing.
enum class ScenarioPaths { kRead, kRefuse };

// The same from text; `file` names it in messages and relative paths (costs)
// resolve against its directory.
Scenario parse_scenario(std::string_view text, const std::string& file,
                        const std::vector<std::string>& overrides = {}, ScenarioPaths paths = ScenarioPaths::kRead);

// The scenario text with the costs profile it names by path replaced by the
// profile's own JSON (resolved as parse_scenario does); the text unchanged
// when it names none. InputError naming the profile when it cannot be read.
std::string with_costs_inlined(std::string_view text, const std::string& file);

// The scenario text with its "cluster" replaced by `cluster` (a JSON object's
// text, such as `calibrate --hosts` measures) cut to the scenario's own number
// of hosts: the first ones, their RTT submatrix. InputError naming `cluster_file`
// when the cluster has fewer hosts than the scenario, or is not one.
std::string with_cluster(std::string_view text, const std::string& file, std::string_view cluster,
                         const std::string& cluster_file);

// --policy NAME... (or the option `flag` names): UsageError for a name given
// twice, or one that `known` (the policies of `file`) lacks, with a "did you mean".
void check_policy_names(const std::vector<std::string>& names, const std::vector<std::string>& known,
                        const std::string& file, const std::string& flag = "--policy");

// A costs profile file (spec "Costs profile").
CostProfile load_cost_profile(const std::string& path);

// The reference profile shipped with exsim (profiles/reference.json, built in).
CostProfile reference_cost_profile();

}  // namespace exsim

#endif  // EXSIM_MODELS_SCENARIO_SCENARIO_LOADER_H_
