// The simulator's public face: one call per (scenario, policy). Everything
// else in sim/ is the engine, the resources and the exchange model behind it.
#ifndef EXSIM_SIM_SIMULATE_H_
#define EXSIM_SIM_SIMULATE_H_

#include <cstdint>
#include <functional>
#include <string>

#include "models/results/results.h"
#include "models/scenario/scenario.h"

namespace exsim {

class Trace;
namespace sim {
struct KeptRuns;
}

struct SimulateOptions {
  std::string scheduler = "calendar";  // event queue implementation (sim/engine/scheduler.h)
  // Every exchange simulated event by event to its last row. Otherwise long
  // exchanges are simulated shortened and their steady middle lengthened to
  // the whole rows, where checks say that is exact (sim/fast_forward.h); a
  // trace always takes the whole run.
  bool exact = false;
  // When set, the run's spans go to this trace (models/results/trace.h), its hosts as
  // processes trace_pid_base + host, named "<policy>: <host>".
  Trace* trace = nullptr;
  int trace_pid_base = 0;
  // When set, called every `progress_events` events with the fraction of the
  // workload's input rows produced so far (for a progress display).
  std::function<void(double)> progress;
  std::uint64_t progress_events = 1 << 20;  // about a quarter of a second
  // When set, the counts of shortened exchanges and the runs of exchanges that
  // run alone are kept here and taken from here (sim/kept_runs.h): simulations
  // of one scenario apart from costs and policy. The figures are the same.
  sim::KeptRuns* kept = nullptr;
};

// What the engine did, for benchmarks.
struct SimulationCounters {
  std::uint64_t events = 0;
  std::uint64_t rpc_records = 0;  // RPC records allocated: bounded by channels x in_flight
  std::size_t max_pending = 0;    // most events waiting in the queue at once
};

// Predicts the scenario's figures under `policy`. Deterministic: the same
// scenario (seed included) and policy give identical results.
RunResult simulate(const Scenario& scenario, const Policy& policy, const SimulateOptions& options = {},
                   SimulationCounters* counters = nullptr);

}  // namespace exsim

#endif  // EXSIM_SIM_SIMULATE_H_
