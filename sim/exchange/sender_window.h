#ifndef EXSIM_SIM_EXCHANGE_SENDER_WINDOW_H_
#define EXSIM_SIM_EXCHANGE_SENDER_WINDOW_H_

#include <array>
#include <cstdint>

#include "models/results/bound.h"
#include "models/results/results.h"
#include "sim/engine/scheduler.h"

namespace exsim::sim {

// The middle of an exchange's rows, in eighths: from 3/8 to 7/8. It starts
// late, so that a short run's start (batches planned ahead of the calls,
// windows and queues filling) is behind it; it ends as the rows do, since the
// end of a run (the last partial batches, end of stream, draining) comes after
// its senders have produced every row. (From 1/4 to 3/4, a run of 32 calls a
// channel put the production scenario's 16K run 0.36% long, against 0.25%.)
inline constexpr std::array<std::int64_t, 2> kMiddleEighths = {3, 7};

// What the senders' threads spent between the moment each had produced 3/8
// of its rows and the moment it had produced 7/8, summed over the senders:
// the steady middle of a long exchange, whose rate fast-forwarding extends
// (sim/fast_forward.h). Each is marked as the thread plans its next input
// batch, when none of its time is left unattributed.
struct SenderWindow {
  std::int64_t rows = 0;
  SimTime blocked_ns = 0;
  std::array<SimTime, kBounds> time_ns{};
  // Over the senders: the slowest, the fastest and the sum of their paces
  // through their middles, and how many senders.
  double slowest_ns_per_row = 0, fastest_ns_per_row = 0, paces_ns_per_row = 0;
  int senders = 0;
  double mean_ns_per_row() const { return senders > 0 ? paces_ns_per_row / senders : 0; }
};

// A sender thread at one end of its middle: its rows produced, when, and its
// times so far (rows -1: not reached).
struct SenderMark {
  std::int64_t rows = -1;
  SimTime at = 0;
  SimTime blocked_ns = 0;
  std::array<SimTime, kBounds> time_ns{};
};

// The run as an exchange's senders, together, reach 3/8 and 7/8 of its rows
// (ExchangeRun::note_produced): the ends of its middle.
struct ProgressMark {
  SimTime at = -1;        // -1: not reached
  std::int64_t rows = 0;  // the exchange's rows produced by then
  CpuByStage cpu;         // the run's, every exchange's
  // The exchange's calls so far, and their network and receiver times.
  std::int64_t rpcs = 0, deferred_rpcs = 0;
  SimTime network_ns = 0, receiver_ns = 0;
  // Its senders' buffer rooms and outbound buffers (SenderInstance::buffer_rooms),
  // and every host's sender and receiver peak, summed: each only grows.
  Bytes rooms = 0;
  int outbound = 0;
  Bytes sender_peaks = 0, receiver_peaks = 0;
};

}  // namespace exsim::sim

#endif  // EXSIM_SIM_EXCHANGE_SENDER_WINDOW_H_
