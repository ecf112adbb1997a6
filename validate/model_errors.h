// Deliberate errors in the model, for showing that the accuracy gate fails
// when the model is wrong (`validate --model-error`): each changes what the
// simulator is given, never what was measured, the way a bug in the model
// would. None is meant for predictions.
#ifndef EXSIM_VALIDATE_MODEL_ERRORS_H_
#define EXSIM_VALIDATE_MODEL_ERRORS_H_

#include <optional>
#include <string>
#include <vector>

#include "models/scenario/scenario.h"

namespace exsim::validate {

enum class ModelError {
  kNoLatency,    // calls cost no round trip: every RTT and the software latency 0
  kOneInFlight,  // every channel keeps one RPC in flight, whatever the policy says
  kLz4HalfCost,  // LZ4 costs half the CPU it was measured at, both ways
  kLz4DoubleCost,  // LZ4 costs twice the CPU it was measured at, both ways
  kNicDoubled,   // every NIC twice as fast as the scenario's
};

// Names as the command line takes them: "no-latency", "one-in-flight", "lz4-half-cost",
// "lz4-double-cost", "nic-doubled".
std::vector<std::string> model_error_names();
std::optional<ModelError> parse_model_error(const std::string& name);
const char* to_string(ModelError error);

// The scenario (costs included) as the erroneous model would see it.
void apply(ModelError error, Scenario& scenario);

}  // namespace exsim::validate

#endif  // EXSIM_VALIDATE_MODEL_ERRORS_H_
