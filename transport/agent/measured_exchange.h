// What the coordinator makes of one measured exchange run: the agents' summed
// figures (ExchangeTotals) turned into the results format's exchange, with
// what bounded its senders, and added to the policy's run.
#ifndef EXSIM_TRANSPORT_AGENT_MEASURED_EXCHANGE_H_
#define EXSIM_TRANSPORT_AGENT_MEASURED_EXCHANGE_H_

#include <cstddef>

#include "models/results/results.h"
#include "models/scenario/scenario.h"
#include "transport/agent/coordinator.h"
#include "transport/agent/protocol.h"

namespace exsim::transport {

// Adds exchange `x` of `query`, repetition `rep`, which took `wall` seconds,
// to `result` (its exchange, CPU and planner tallies) and its calls' times to `calls`.
void record_exchange(const Scenario& scenario, const RunOptions& options, RunResult& result, CallHistograms& calls,
                     const Query& query, std::size_t x, int rep, const ExchangeTotals& t, double wall);

}  // namespace exsim::transport

#endif  // EXSIM_TRANSPORT_AGENT_MEASURED_EXCHANGE_H_
