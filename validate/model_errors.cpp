#include "validate/model_errors.h"

#include <array>
#include <utility>

namespace exsim::validate {
namespace {

constexpr std::array<std::pair<ModelError, const char*>, 5> kNames{{
    {ModelError::kNoLatency, "no-latency"},
    {ModelError::kOneInFlight, "one-in-flight"},
    {ModelError::kLz4HalfCost, "lz4-half-cost"},
    {ModelError::kLz4DoubleCost, "lz4-double-cost"},
    {ModelError::kNicDoubled, "nic-doubled"},
}};

}  // namespace

std::vector<std::string> model_error_names() {
  std::vector<std::string> names;
  for (const auto& [error, name] : kNames) names.emplace_back(name);
  return names;
}

std::optional<ModelError> parse_model_error(const std::string& name) {
  for (const auto& [error, known] : kNames) {
    if (name == known) return error;
  }
  return std::nullopt;
}

const char* to_string(ModelError error) {
  for (const auto& [known, name] : kNames) {
    if (known == error) return name;
  }
  return "?";
}

void apply(ModelError error, Scenario& scenario) {
  switch (error) {
    case ModelError::kNoLatency: {
      const int n = scenario.cluster.rtt.hosts();
      for (int a = 0; a < n; ++a) {
        for (int b = 0; b < n; ++b) scenario.cluster.rtt.set_rtt(a, b, 0);
      }
      scenario.costs.rpc_latency_us = 0;
      break;
    }
    case ModelError::kOneInFlight:
      for (auto& policy : scenario.policies) policy.in_flight = 1;
      break;
    case ModelError::kLz4HalfCost:
      scenario.costs.lz4_compress_bytes_per_s *= 2;
      scenario.costs.lz4_decompress_bytes_per_s *= 2;
      break;
    case ModelError::kLz4DoubleCost:
      scenario.costs.lz4_compress_bytes_per_s /= 2;
      scenario.costs.lz4_decompress_bytes_per_s /= 2;
      break;
    case ModelError::kNicDoubled:
      scenario.cluster.nic_gbps *= 2;
      break;
  }
}

}  // namespace exsim::validate
