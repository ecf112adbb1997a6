#include "transport/agent/measurable.h"

#include <fmt/format.h>

#include "models/base/error.h"

namespace exsim::transport {

std::vector<std::string> unmeasurable(const std::vector<Policy>& policies, const std::string& file) {
  std::vector<std::string> problems;
  for (const Policy& p : policies) {
    if (p.sender_layout != SenderLayout::kHead) {
      problems.push_back(fmt::format(
          "{}:/policies/{}/sender_layout: expected \"head\" for the real exchange, got \"v4.3\": it implements "
          "Impala's sender as at HEAD (one outbound batch a channel); v4.3's two a channel are simulated only "
          "(exsim simulate)",
          file, p.name));
    }
  }
  return problems;
}

void require_measurable(const std::vector<Policy>& policies, const std::string& file) {
  if (auto problems = unmeasurable(policies, file); !problems.empty()) throw InputError(std::move(problems));
}

}  // namespace exsim::transport
