// What the real exchange can measure. It implements Impala's sender as at HEAD
// (one outbound batch a channel, docs/impala.md §2.4); Impala 4.3's two batches
// a channel (`"sender_layout": "v4.3"`, §2.5) are simulated only. A scenario
// asking the real exchange for what it does not implement is refused before
// anything runs: measured against a model of another layout, the comparison
// would judge unlike things.
#ifndef EXSIM_TRANSPORT_AGENT_MEASURABLE_H_
#define EXSIM_TRANSPORT_AGENT_MEASURABLE_H_

#include <string>
#include <vector>

#include "models/scenario/scenario.h"

namespace exsim::transport {

// The problems of `policies` (of the scenario in `file`) the real exchange
// cannot run, each naming the file and JSON path; empty when it can run them all.
std::vector<std::string> unmeasurable(const std::vector<Policy>& policies, const std::string& file);

// Throws InputError with every such problem.
void require_measurable(const std::vector<Policy>& policies, const std::string& file);

}  // namespace exsim::transport

#endif  // EXSIM_TRANSPORT_AGENT_MEASURABLE_H_
