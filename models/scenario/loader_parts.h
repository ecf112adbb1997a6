// Readers for the sections of a scenario, shared by scenario_loader.cpp and its
// helpers. Internal to models/.
#ifndef EXSIM_MODELS_SCENARIO_LOADER_PARTS_H_
#define EXSIM_MODELS_SCENARIO_LOADER_PARTS_H_

#include <cstdint>
#include <string>

#include "models/base/json_reader.h"
#include "models/scenario/scenario.h"

namespace exsim {

Cluster read_cluster(const JsonNode& node, std::uint64_t seed);
Policy read_policy(const JsonNode& node, const std::string& name);
// Missing keys keep the values of `base` (the reference profile for inline costs).
CostProfile read_costs(const JsonNode& node, const CostProfile& base);

}  // namespace exsim

#endif  // EXSIM_MODELS_SCENARIO_LOADER_PARTS_H_
