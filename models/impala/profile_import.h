// A scenario from an Impala query profile: one exchange per
// KrpcDataStreamSender / DataStreamSender, its rows, bytes and compression
// ratio from the sender's counters, its partitioning from the plan, its hosts
// and instances from the fragment headers. Whatever the profile does not say is
// assumed, and every value, measured or assumed, gets a note in the scenario's
// "notes" saying which.
#ifndef EXSIM_MODELS_IMPALA_PROFILE_IMPORT_H_
#define EXSIM_MODELS_IMPALA_PROFILE_IMPORT_H_

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "models/impala/impala_profile.h"
#include "models/impala/exchange_counters.h"

namespace exsim {

struct ProfileImportOptions {
  std::string name;  // the scenario's name; from the query id when empty
  int hosts = 0;     // cluster size when the profile names no hosts; 0: the most instances of any fragment
  // Of a file holding several profiles (impala-profile-tool's output), import
  // only the query'th, counted from 1; 0: each profile with a sender as a
  // scenario query of its own.
  int query = 0;
  // Partitioning of exchanges (by dst_id) whose plan line is not in the profile:
  // hash, broadcast, random or merge.
  std::map<int, std::string> kinds;
};

// What the profile measured of an imported exchange, for replay and costs.
struct ImportedExchange {
  std::string query;     // the scenario query's name ("q2": the file's second profile)
  std::string query_id;  // the profile's "Query (id=...)", "" in an excerpt without one
  std::string id;        // the exchange's id in the scenario
  int copies = 1;        // of each batch in the byte counters: a broadcast's channels
  double local_share = 0;  // of the batches, those sent uncompressed to the sender's own daemon
  SenderCounters counters;
  ReceiverCounters receivers;
};

struct ImportedScenario {
  std::string json;  // the scenario file's text
  std::vector<std::pair<std::string, std::string>> assumptions;  // (JSON pointer, note) of assumed values
  int exchanges = 0;
  std::vector<std::string> skipped;  // senders left out, each "FILE:LINE: sender: why"
  std::vector<ImportedExchange> measured;  // in the scenario's order
};

// Makes the scenario's "costs" name `path` (the costs profile derived from the
// same profile, relative to the scenario), with a note saying so.
void name_costs_file(ImportedScenario& imported, const std::string& path);

// InputError when the profile has no data stream sender, or a counter the
// scenario needs is malformed.
ImportedScenario import_impala_profile(const ImpalaProfile& profile, const ProfileImportOptions& options);

}  // namespace exsim

#endif  // EXSIM_MODELS_IMPALA_PROFILE_IMPORT_H_
