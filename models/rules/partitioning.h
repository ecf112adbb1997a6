// Which sender instance produces how many of an exchange's rows, which
// receiver instance gets what share of a hash exchange's rows, and the seeds
// that decide it. Shared by the simulator and the real exchange so that
// both partition a scenario's rows the same way.
#ifndef EXSIM_MODELS_RULES_PARTITIONING_H_
#define EXSIM_MODELS_RULES_PARTITIONING_H_

#include <cstdint>
#include <vector>

#include "models/scenario/scenario.h"

namespace exsim {

// The rows sender instance `sender` produces: they divide evenly over the
// instances, the first ones taking the remainder.
std::int64_t sender_rows(const Exchange& exchange, int sender);

// The seed of one run of one exchange: query, repetition and exchange index.
std::uint64_t exchange_seed(const Scenario& scenario, std::size_t query, int repetition, std::size_t exchange);

// The seed of sender instance `sender` of that run.
std::uint64_t sender_seed(std::uint64_t exchange_seed, int sender);

// Share of rows each receiver instance gets under a Zipf exponent `skew`
// (0 = uniform). Which instances get the large shares is a seeded permutation,
// as Impala seeds its hash per query (IMPALA-8005).
std::vector<double> zipf_shares(int instances, double skew, std::uint64_t seed);

class Random;

// The order in which a sender sends a broadcast batch to its `channels`: a
// permutation drawn once per sender, as Impala shuffles its channels "to avoid
// thundering herd" (krpc-data-stream-sender.cc:837-841, docs/impala.md §3.1).
std::vector<int> broadcast_order(int channels, Random& random);

// The shares of a hash exchange's receiver instances in one run.
std::vector<double> receiver_shares(const Exchange& exchange, std::uint64_t exchange_seed);

}  // namespace exsim

#endif  // EXSIM_MODELS_RULES_PARTITIONING_H_
