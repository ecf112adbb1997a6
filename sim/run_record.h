// What the query driver records of an exchange run when its query ends: its
// figures, its track for the fast-forward's checks, and each sender
// instance's memory peak. The same whether it ran among the others or apart
// (sim/alone_runs.h).
#ifndef EXSIM_SIM_RUN_RECORD_H_
#define EXSIM_SIM_RUN_RECORD_H_

#include <string>
#include <utility>
#include <vector>

#include "sim/event_run.h"
#include "sim/exchange/exchange_run.h"

namespace exsim::sim {

struct RecordedRun {
  ExchangeResult result;
  EventRun::Track track;
  std::vector<std::pair<int, Bytes>> sender_peaks;  // (host, peak) of each sender instance
};

// REQUIRES: the run has finished.
RecordedRun record_run(const ExchangeRun& run, const std::string& query, int repetition);

}  // namespace exsim::sim

#endif  // EXSIM_SIM_RUN_RECORD_H_
