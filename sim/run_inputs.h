// What a run of one exchange reads of the policy and of the costs: the rest
// touches none of its events, so two policies or two costs profiles the same
// here give it the same run (sim/alone_runs.h keys its runs by them). Each
// follows where the exchange model reads the field; tests/sim/alone_runs_test.cpp
// moves each cost and each sizing alone and compares the runs byte for byte.
#ifndef EXSIM_SIM_RUN_INPUTS_H_
#define EXSIM_SIM_RUN_INPUTS_H_

#include "models/scenario/costs.h"
#include "models/scenario/policy.h"
#include "models/scenario/scenario.h"

namespace exsim::sim {

// A whole-batch sender (every send path but hash) sends its input batches as
// they come: the channel buffer's sizing and capacity rule touch neither its
// batches nor its memory (SenderInstance's plans, sender_static_bytes,
// channel_buffer_bytes). The name touches nothing.
Policy policy_seen_by(const Policy& policy, const Exchange& exchange);

// A whole-batch sender routes no row: the routing's costs (partition and
// append rates, the core's cache and the misses of a routed row, the
// prefetcher's streams) are a hash sender's alone (CostRates::route_ns_per_row,
// the append in batch_cpu). Where the profile came from and its spread are
// for people, not the model.
CostProfile costs_seen_by(const CostProfile& costs, const Exchange& exchange);

// Both read rpc_cpu_busy_us and rpc_cpu_queued_us as the model does: at
// rpc_cpu_us or above, where a range's end may put them, they are none.
//
// Where the sending side's per-call CPU is counted (rpc_caller_cpu_us: how much
// of it is the query's own thread's) moves no event: all of it runs on the
// sender's timeline either way (SenderInstance::call_cpu). Two profiles the
// same but for it, their sources and their spreads give every time and count
// alike; only the CPU's split between cpu_s.call and cpu_s.rpc differs.
bool same_timeline(const CostProfile& a, const CostProfile& b);

}  // namespace exsim::sim

#endif  // EXSIM_SIM_RUN_INPUTS_H_
