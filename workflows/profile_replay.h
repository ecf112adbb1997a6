// The model replayed against a real Impala run (`validate --impala-profile`):
// the profile imported as a scenario, the costs its counters give (the rest
// from a base profile), the scenario simulated at the profile's own buffer
// size, and per exchange what the profile measured beside what the model
// predicts: the calls, the bytes, each call's network and receiver time, the
// calls held back, the largest sender's peak and the time in the sender; for
// all exchanges, the serialization and deserialization times. No threshold:
// the errors are reported as found, with what the profile says of their cause
// (a DEBUG build).
#ifndef EXSIM_WORKFLOWS_PROFILE_REPLAY_H_
#define EXSIM_WORKFLOWS_PROFILE_REPLAY_H_

#include <optional>
#include <string>
#include <vector>

#include "models/impala/profile_costs.h"
#include "models/impala/profile_import.h"
#include "models/results/results.h"

namespace exsim::workflows {

struct ReplayRow {
  std::string exchange;  // "q2 F00-x2", or "q2" for a query's figure
  std::string figure;    // "calls", "bytes sent", ...
  std::string counter;   // what the profile calls it
  double model = 0, profile = 0;
  double error() const { return profile != 0 ? model / profile - 1 : 0; }
};

struct ProfileReplay {
  std::string file;
  ImportedScenario imported;
  DerivedCosts costs;
  RunResult predicted;  // at the scenario's one policy, Impala's default
  std::vector<ReplayRow> rows;
};

ProfileReplay replay_profile(const std::string& file, const ProfileImportOptions& options, const CostProfile& base,
                             const std::string& base_name);

std::string replay_table(const ProfileReplay& replay, bool markdown);
std::string replay_json(const ProfileReplay& replay);

}  // namespace exsim::workflows

#endif  // EXSIM_WORKFLOWS_PROFILE_REPLAY_H_
