// What a user should know of a scenario's policies before reading their
// results: the per-channel buffer each policy gives its hash exchanges after a
// budget's clamping, and notes on what makes results look alike or unbounded.
#ifndef EXSIM_MODELS_RULES_POLICY_NOTES_H_
#define EXSIM_MODELS_RULES_POLICY_NOTES_H_

#include <string>
#include <vector>

#include "models/scenario/policy.h"
#include "models/scenario/scenario.h"

namespace exsim {

// The least and largest per-channel target `policy` gives the scenario's hash
// exchanges (docs/impala.md §1.1; a budget's clamp(budget / (2 x channels),
// min, max)). `hash_exchanges` 0: none (other kinds send whole input batches).
struct ChannelBuffers {
  Bytes least = 0, most = 0;
  int hash_exchanges = 0;
  int at_min = 0, at_max = 0;  // budget: exchanges clamped to its min, to its max
};
ChannelBuffers channel_buffers(const Scenario& scenario, const Policy& policy);

// "16K", or "16K-48K" when the exchanges differ; "-" without a hash exchange.
std::string channel_buffers_text(const ChannelBuffers& buffers);

// One line each: a budget policy clamped to its min on every hash exchange,
// which then sends as a flat buffer of its min does (its batches are never
// smaller than today's), or to its max, where the budget never binds; exchanges whose
// producers take no time (no produce_rows_per_s), which leaves their senders
// bound by their own CPU.
std::vector<std::string> policy_notes(const Scenario& scenario, const std::vector<Policy>& policies);

}  // namespace exsim

#endif  // EXSIM_MODELS_RULES_POLICY_NOTES_H_
