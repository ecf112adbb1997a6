// A costs profile from what an Impala profile measured (import-profile
// --costs): each figure its counters give, derived, its source naming them;
// every other figure from a base profile, listed as taken from it. What the
// counters give:
//
// - serialize_bytes_per_s and lz4_compress_bytes_per_s, deserialize_bytes_per_s
//   and lz4_decompress_bytes_per_s: Impala times a stage with its LZ4
//   (krpc-data-stream-sender.cc's serialize_batch_timer_, the receiver's
//   DeserializeRowBatchTime), so the exchanges whose batches went uncompressed
//   give the stage alone, over their tuple bytes (UncompressedRowBatchSize less
//   its 8 B tuple pointer a row) less the base's per-row and per-batch parts,
//   and the compressed ones give LZ4, their time less the stage at that rate
//   (or the base's), over the bytes LZ4 ran on;
// - rpc_latency_us: RpcNetworkTime per call (the call's time less the
//   receiver's, as the sender counts it) less the scenario's RTT and the call's
//   bytes at its NIC speed, which is how the simulator builds a call's network
//   time (sim/exchange/rpc.h, CallParts).
//
// The producers' speed goes into the scenario itself (profile_import.h).
#ifndef EXSIM_MODELS_IMPALA_PROFILE_COSTS_H_
#define EXSIM_MODELS_IMPALA_PROFILE_COSTS_H_

#include <map>
#include <string>
#include <vector>

#include "models/impala/profile_import.h"
#include "models/scenario/costs.h"
#include "models/scenario/scenario.h"

namespace exsim {

struct DerivedCosts {
  CostProfile costs;
  std::map<std::string, std::string> sources;  // every figure: derived (and how) or from the base
  std::vector<std::string> derived;            // keys of the figures the profile gave
  std::vector<std::string> warnings;           // what makes the figures doubtful (a DEBUG build)
};

// `scenario`: the one `imported` describes (its RTT and NIC speed);
// `base_name` names `base` in the sources; `impala_version` is the profile's
// "Impala Version" line, "" when it has none.
DerivedCosts derive_costs(const ImportedScenario& imported, const Scenario& scenario, const CostProfile& base,
                          const std::string& base_name, const std::string& impala_version);

}  // namespace exsim

#endif  // EXSIM_MODELS_IMPALA_PROFILE_COSTS_H_
