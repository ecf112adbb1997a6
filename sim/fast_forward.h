// Long exchanges simulated shortened and extended to their whole rows
// (docs/simulator.md, "Fast-forward").
//
// Over most of a long exchange each channel repeats one cycle: produce, route,
// serialize, compress, send, wait. Its start (buffers growing, windows and
// queues filling) and its end (the last partial batches, end of stream, the
// receivers draining) do not depend on how long it runs. So the scenario is
// simulated with its long exchanges cut to a fraction of their rows, and the
// steady stretch is lengthened to the whole rows:
//
// - Stretched: when an exchange's middle (from 3/8 to 7/8 of its rows) runs
//   alone, every time the run accumulated over the middle is
//   added again in proportion to the rows left out.
// - Along a line: otherwise (exchanges side by side), a second run of half the
//   rows is simulated, and each time is read off the line through the two runs
//   at the whole rows, the run's shape being the same in both.
//
// What does not depend on time is not extended: a sender's routing draws come
// from its own random stream, so its calls, rows and bytes are counted exactly
// by planning every batch without simulating time (SenderInstance::count_sends).
// What a check finds narrows the next try: an exchange whose buffers the
// whole rows grow further (counting shows it before any run) is simulated
// whole; one whose middle was too short to measure is run again longer. A run
// whose shape or buffers change with its length is simulated whole, and the
// result says why ("fast_forward": {"declined": ...}).
#ifndef EXSIM_SIM_FAST_FORWARD_H_
#define EXSIM_SIM_FAST_FORWARD_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/exchange/exchange_run.h"
#include "sim/simulate.h"

namespace exsim::sim {

// The shortened run carries at least kRunCalls calls on each channel, so that
// the cycle settles before its middle (at 32, 12 calls in; the production
// scenario's 16K run came out 0.25% long, against 0.04% at 64 calls and a
// middle from 1/4 to 3/4, and took a quarter less time), and kRunTotalCalls
// in all, so that the rate its channels average to over the middle is the
// whole run's: with few channels the rate wanders by a percent or two over a
// few thousand calls (docs/simulator.md).
inline constexpr double kRunCalls = 32;
inline constexpr double kRunTotalCalls = 131072;
// An exchange is shortened to at most half its rows (stretched), a second run
// along a line to at most an eighth (the shorter run at a sixteenth).
inline constexpr double kLargestFraction = 0.5;
// A stretched run whose exchange had too short a middle to measure (its
// senders' paces apart, as the routing's noise leaves them over a few calls)
// is run once more with that exchange this many times longer.
inline constexpr double kLengthening = 4;
inline constexpr double kLargestLineFraction = 1.0 / 8;
// The senders of an exchange stretched go at paces within this share of each
// other through its middle: when some are faster, they end first and leave the
// others a phase of their own, which a second run along a line follows.
inline constexpr double kPaceSpread = 0.01;
// A receiver's memory peak may grow this much over the middle (or between two
// runs): the shortened run's is reported.
inline constexpr double kReceiverPeakDrift = 0.01;

// Which exchanges to shorten, and to what fraction of their rows.
struct Shortening {
  std::vector<std::vector<double>> fraction;  // [query][exchange]: of its rows in the shortened run; 1: whole
  bool any() const;
  bool shortened(std::size_t query, std::size_t exchange) const { return fraction[query][exchange] < 1; }
  bool operator==(const Shortening&) const = default;
};

// The two ways to extend a run, each planned only where it is worth its cost
// (else it shortens nothing). An exchange is long when a fraction of its rows
// of at most kLargestFraction carries kRunCalls a channel and kRunTotalCalls
// in all; the least such fraction is what it needs.
// - Stretched: the long exchanges that run alone (ordered by `after` with
//   every other exchange of their query), each at the fraction it needs, so
//   that one long exchange does not keep the others long. A long exchange that
//   may run beside another is simulated whole in it.
// - Along a line: every long exchange at the largest fraction any needs, at
//   most kLargestLineFraction: the whole rows then lie at one point of the
//   line for all of them.
struct ShorteningPlan {
  // [query][exchange]:
  std::vector<std::vector<double>> needs;  // the fraction a long exchange needs; 1: simulated whole
  std::vector<std::vector<bool>> alone;    // no other exchange of its query can run beside it
  std::vector<std::vector<double>> calls;  // its TransmitData calls, over the query's repetitions
  Shortening stretch() const;
  Shortening line() const;
  bool any() const { return stretch().any() || line().any(); }
  // From now on simulated whole: it cannot be extended.
  void keep_whole(std::size_t query, std::size_t exchange) { needs[query][exchange] = 1; }
  // From now on shortened to kLengthening times the fraction, or simulated
  // whole beyond kLargestFraction.
  void lengthen(std::size_t query, std::size_t exchange);
};

// TransmitData calls a sender instance makes on each of its channels over the
// whole exchange, on average.
double calls_per_channel(const Policy& policy, const Exchange& exchange);

ShorteningPlan plan_shortening(const Scenario& scenario, const Policy& policy);

// The scenario with each shortened exchange's rows times `fraction` (`half`:
// half of them, for the line's second run).
Scenario shortened_scenario(const Scenario& scenario, const Shortening& plan, bool half = false);

// An exchange run's calls, rows and bytes, and its senders' buffer rooms at
// the end (SenderInstance::buffer_rooms), planned without time.
struct CountedRun {
  ExchangeStats counts;
  Bytes rooms = 0;
  // The CPU its senders spend compressing, seconds: per batch sealed, which a
  // short middle's seals sample unevenly, so counted rather than extended.
  double compress_s = 0;
};
// Every exchange run's, in the order of RunResult::exchanges; with `only`, the
// shortened ones' (the others' left empty: the shortened run simulates them whole).
std::vector<CountedRun> count_exchange_runs(const Scenario& scenario, const Policy& policy,
                                            const Shortening* only = nullptr);

// The scenario's figures from shortened runs when they can be extended (above),
// with `counters` the runs' together; nullopt when no exchange is long enough
// to shorten. A run that cannot be extended is simulated whole here.
std::optional<RunResult> fast_forward(const Scenario& scenario, const Policy& policy, const SimulateOptions& options,
                                      SimulationCounters* counters);

}  // namespace exsim::sim

#endif  // EXSIM_SIM_FAST_FORWARD_H_
