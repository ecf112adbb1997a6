// What the simulations a workflow makes of one scenario (its policies, its
// cost variants) keep for each other: the counts of long exchanges
// (sim/count_cache.h) and the runs of exchanges that run alone
// (sim/alone_runs.h). Each keeps what depends only on its own key, so a
// simulation's figures are the same with or without the others.
#ifndef EXSIM_SIM_KEPT_RUNS_H_
#define EXSIM_SIM_KEPT_RUNS_H_

#include "sim/alone_runs.h"
#include "sim/count_cache.h"

namespace exsim::sim {

struct KeptRuns {
  CountCache counts;
  AloneRunCache alone;
};

}  // namespace exsim::sim

#endif  // EXSIM_SIM_KEPT_RUNS_H_
