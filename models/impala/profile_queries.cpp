#include "models/impala/profile_queries.h"

#include "models/impala/profile_titles.h"

namespace exsim {

std::vector<QuerySpan> profile_queries(const ImpalaProfile& profile) {
  std::vector<QuerySpan> queries;
  for (const auto& top : profile.root().children) {
    if (std::optional<std::string> id = query_id(*top)) {
      if (!queries.empty()) queries.back().end_line = top->line;
      queries.push_back({top.get(), *id, top->line, 0});
    }
  }
  if (queries.empty()) queries.push_back({});
  return queries;
}

int query_of(const std::vector<QuerySpan>& queries, const ProfileSection& section) {
  const ProfileSection* top = &section;
  while (top->parent && top->parent->parent) top = top->parent;
  for (std::size_t q = 0; q < queries.size(); ++q) {
    if (queries[q].top == top) return static_cast<int>(q);
  }
  return 0;
}

}  // namespace exsim
