// Impala's profile log: the files its daemons write under log_dir/profiles
// (impala_profile_log_*), one query a line, "MILLISECONDS QUERY_ID PROFILE",
// the profile a TRuntimeProfileTree (common/thrift/RuntimeProfile.thrift) in
// Thrift's compact protocol, zlib-compressed and base64-encoded
// (RuntimeProfile::SerializeToArchiveString). Decoded here into the JSON form
// of models/impala/profile_json.h, a list of the log's profiles, so that one
// importer reads them all.
#ifndef EXSIM_MODELS_IMPALA_PROFILE_LOG_H_
#define EXSIM_MODELS_IMPALA_PROFILE_LOG_H_

#include <string>
#include <string_view>

namespace exsim {

// Whether `text`'s first line reads as a profile log's: a timestamp, a query id
// ("hex:hex") and a base64 word.
bool looks_like_profile_log(std::string_view text);

// The log's profiles as a JSON list of {"contents": profile tree}. InputError
// naming `file` and the line of a profile that does not decode (not base64,
// not zlib, not a profile tree), or of one in the aggregated form of
// AGGREGATED_PROFILE (profile_version 2), which is not read yet.
std::string profile_log_to_json(std::string_view text, const std::string& file);

// A profile file of any form Impala writes (a profile log, JSON, or text) as
// the text form models/impala/impala_profile.h parses.
std::string profile_as_text(std::string_view text, const std::string& file);

}  // namespace exsim

#endif  // EXSIM_MODELS_IMPALA_PROFILE_LOG_H_
