// Impala query profiles in JSON, as the web UI's /query_profile_json and
// impala-profile-tool --profile_format=json write them: a tree of
// {"profile_name", "counters": [{"counter_name", "value", "unit"}],
// "summary_stats_counters", "info_strings": [{"key", "value"}],
// "child_profiles"} (util/runtime-profile.cc, RuntimeProfile::ToJson), under
// "contents", or a list of such profiles. Rendered in the text form that
// models/impala/impala_profile.h parses, so that one importer reads both.
#ifndef EXSIM_MODELS_IMPALA_PROFILE_JSON_H_
#define EXSIM_MODELS_IMPALA_PROFILE_JSON_H_

#include <string>
#include <string_view>

namespace exsim {

// Whether `text` is a JSON document (its first character that is not white
// space opens an object or a list).
bool looks_like_json(std::string_view text);

// The profile (or profiles) of the JSON `text` in Impala's text form: each
// profile a section "NAME:(Total: Nns)", its info strings "KEY: VALUE" (a value
// of several lines, such as the plan, one line each), its counters "- NAME:
// VALUE" in the units the text form prints (times in ns, bytes and counts
// exact), its summary statistics "- NAME: (Avg: ... ; Min: ... ; Max: ... ;
// Number of samples: N)", then its children, indented. InputError naming
// `file` and the JSON pointer of everything that is not what Impala writes.
std::string render_json_profile(std::string_view text, const std::string& file);

}  // namespace exsim

#endif  // EXSIM_MODELS_IMPALA_PROFILE_JSON_H_
