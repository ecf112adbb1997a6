// The profiles of one file. impala-profile-tool prints a whole profile log, a
// "Query (id=...)" section for each query (a COMPUTE STATS and its child
// queries, say); each has its own plan and its own exchange ids, so the
// importer keeps them apart.
#ifndef EXSIM_MODELS_IMPALA_PROFILE_QUERIES_H_
#define EXSIM_MODELS_IMPALA_PROFILE_QUERIES_H_

#include <string>
#include <vector>

#include "models/impala/impala_profile.h"

namespace exsim {

struct QuerySpan {
  const ProfileSection* top = nullptr;  // the "Query (id=...)" section; nullptr: the whole file
  std::string id;                       // "ab:cd", or "" for the whole file
  int first_line = 1, end_line = 0;     // the lines it spans, [first, end); 0: to the end
};

// The file's profiles in order: its top-level "Query (id=...)" sections, or,
// in a file without one (an excerpt), the whole file as one.
std::vector<QuerySpan> profile_queries(const ImpalaProfile& profile);

// Which of `queries` holds `section` (0 when none does).
int query_of(const std::vector<QuerySpan>& queries, const ProfileSection& section);

}  // namespace exsim

#endif  // EXSIM_MODELS_IMPALA_PROFILE_QUERIES_H_
