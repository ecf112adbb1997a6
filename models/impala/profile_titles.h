// What the titles and plan lines of an Impala query profile say about its
// exchanges: which section is a data stream sender and to which exchange, which
// fragment instance (and host) encloses a section, and each exchange's
// partitioning as the plan prints it. The profile's text form is parsed by
// models/impala/impala_profile.h; the scenario is built from these by
// models/impala/profile_import.cpp. Kept apart so that the title patterns (and
// <regex>) stay in one file.
#ifndef EXSIM_MODELS_IMPALA_PROFILE_TITLES_H_
#define EXSIM_MODELS_IMPALA_PROFILE_TITLES_H_

#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "models/impala/impala_profile.h"

namespace exsim {

// The fragment, instance and host around a section.
struct Enclosing {
  std::string fragment;  // "F01", or "" when no fragment header encloses it
  std::string host;      // of the instance, as its title gives it ("h1:22000"), "" when not inside an instance
  bool averaged = false;  // inside an "Averaged Fragment"
  // Inside a fragment of the aggregated layout (Impala 4 and later, "Fragment
  // F01 [12 instances]" with an "Instances:" list and no per-instance
  // sections): the host of each instance, in the list's order; empty otherwise.
  std::vector<std::string> listed_hosts;
  const ProfileSection* instance_or_fragment = nullptr;  // whose "(Total: ...)" is the fragment's time
};
Enclosing enclosing(const ProfileSection& section);

// The hosts ("h1:27000") of the instances a fragment of the aggregated layout
// lists under "Instances:"; empty for a fragment without that list.
std::vector<std::string> listed_instance_hosts(const ProfileSection& fragment);
// "KrpcDataStreamSender (dst_id=7)" or "DataStreamSender (dst_id=7)": 7.
// nullopt for a section of another kind; InputError (file and line) for a
// sender-like title that does not parse ("dst_id=-4"), since skipping it would
// silently drop that sender's traffic.
std::optional<int> sender_dst_id(const ImpalaProfile& profile, const ProfileSection& section);
// "EXCHANGE_NODE (id=7)": 7.
std::optional<int> exchange_node_id(const ImpalaProfile& profile, const ProfileSection& section);
// "Instance ... (host=h1:22000)": "h1:22000", the daemon (several may share a machine).
std::optional<std::string> instance_host(const ProfileSection& section);
// Names for the daemons `addresses` ("h1:22000"): each its host name, unless
// several daemons share that name (Impala's minicluster runs three on one
// machine, ports 27000-27002), then "h1-27001".
std::vector<std::string> daemon_names(const std::vector<std::string>& addresses);
// "Averaged Fragment F01".
bool is_averaged_fragment(const ProfileSection& section);
// "Query (id=ab:cd)": "ab:cd".
std::optional<std::string> query_id(const ProfileSection& section);

// The partitioning of exchange `id` from the plan text ("07:EXCHANGE
// [BROADCAST]"), as a scenario kind, and where it was read.
struct PlanKind {
  std::string kind;
  std::string source;
};
// Only lines [first_line, end_line) are searched (end_line 0: to the end): a
// file of several profiles has a plan in each.
std::optional<PlanKind> plan_kind(const ImpalaProfile& profile, int id, int first_line = 1, int end_line = 0);

// The profile's "Impala Version" info line ("impalad version 5.0.0-SNAPSHOT
// DEBUG (build ...)"), "" when it has none.
std::string impala_version(const ImpalaProfile& profile);
// Whether that version skips LZ4 for a channel to its own process (IMPALA-12430,
// in 4.3.0 and later); nullopt when the version does not say.
std::optional<bool> skips_local_compression(const std::string& version);

// The first of `names` that the section has as a counter.
const ProfileEntry* first_counter(const ProfileSection& section, std::initializer_list<std::string_view> names);

}  // namespace exsim

#endif  // EXSIM_MODELS_IMPALA_PROFILE_TITLES_H_
