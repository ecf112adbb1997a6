// Long exchanges simulated shortened and extrapolated (docs/simulator.md,
// "Fast-forward").
//
// Over most of a long exchange each channel repeats one cycle: produce, route,
// serialize, compress, send, wait. Its start (buffers growing, windows and
// queues filling) and its end (the last partial batches, end of stream, the
// receivers draining) do not depend on how long it runs. So every time the
// simulation predicts, the wall-clock, each exchange's and each stage's, is
// affine in the long exchanges' rows once they run long enough for the cycle
// to settle. The scenario is simulated twice with those exchanges cut to a
// fraction f and 2f of their rows, and each time is extrapolated along the line
// through the two. What does not depend on time is not extrapolated: a
// sender's routing draws come from its own random stream, so its calls, rows
// and bytes are counted exactly by planning every batch without simulating
// time (SenderInstance::count_sends).
//
// It is exact when the cycle has settled in the shorter run, which it is given
// kShortCalls calls on each channel, and when nothing but the rows differs
// between the runs: the exchanges start and end in the same order in both runs
// and in the extrapolation, and the senders' and receivers' memory peaks are
// the same in both. Otherwise the scenario is simulated whole, and the result
// says why ("fast_forward": {"declined": ...}).
#ifndef EXSIM_SIM_FAST_FORWARD_H_
#define EXSIM_SIM_FAST_FORWARD_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/exchange/exchange_run.h"
#include "sim/simulate.h"

namespace exsim::sim {

// The shorter run carries at least kShortCalls calls on each channel, so that
// the cycle settles, and kShortRunCalls in all, so that the rate its channels
// average to is the whole run's: with few channels the rate wanders by a
// percent or two over a few thousand calls (docs/simulator.md).
inline constexpr double kShortCalls = 32;
inline constexpr double kShortRunCalls = 65536;
// Exchanges are shortened to at most this fraction of their rows; shorter ones
// are simulated whole, as shortening would save little.
inline constexpr double kLargestFraction = 1.0 / 16;
// And only when the two shortened runs cost at most this share of the whole
// run's work: the exchanges not shortened are simulated in both.
inline constexpr double kMostWork = 0.5;

// A receiver's memory peak may be this much larger in the longer shortened run
// than in the shorter one: the longer run's is reported.
inline constexpr double kReceiverPeakDrift = 0.01;

// Which exchanges to shorten, and to what fraction of their rows.
struct Shortening {
  std::vector<std::vector<bool>> shortened;  // [query][exchange]
  double fraction = 1;
  bool any() const { return fraction < 1; }
};

// TransmitData calls a sender instance makes on each of its channels over the
// whole exchange, on average.
double calls_per_channel(const Policy& policy, const Exchange& exchange);

Shortening plan_shortening(const Scenario& scenario, const Policy& policy);

// The scenario with each shortened exchange's rows times `fraction`.
Scenario shortened_scenario(const Scenario& scenario, const Shortening& plan, double fraction);

// An exchange run's calls, rows and bytes, and its senders' buffer rooms at
// the end (SenderInstance::buffer_rooms), planned without time.
struct CountedRun {
  ExchangeStats counts;
  Bytes rooms = 0;
};
// Every exchange run's, in the order of RunResult::exchanges.
std::vector<CountedRun> count_exchange_runs(const Scenario& scenario, const Policy& policy);

// The scenario's figures from two shortened runs when exact (above), with
// `counters` the two runs' together; nullopt when no exchange is long enough
// to shorten. A run that cannot be extrapolated is simulated whole here.
std::optional<RunResult> fast_forward(const Scenario& scenario, const Policy& policy, const SimulateOptions& options,
                                      SimulationCounters* counters);

}  // namespace exsim::sim

#endif  // EXSIM_SIM_FAST_FORWARD_H_
