#ifndef EXSIM_SIM_EXCHANGE_SENDER_WINDOW_H_
#define EXSIM_SIM_EXCHANGE_SENDER_WINDOW_H_

#include <array>
#include <cstdint>

#include "models/results/bound.h"
#include "models/results/results.h"
#include "sim/engine/scheduler.h"

namespace exsim::sim {

// What the senders' threads spent between the moment each had produced a
// quarter of its rows and the moment it had produced three quarters, summed
// over the senders: the steady middle of a long exchange, whose rate
// fast-forwarding extends (sim/fast_forward.h). Each is marked as the thread
// plans its next input batch, when none of its time is left unattributed.
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

// The run as an exchange's senders, together, reach a quarter and three
// quarters of its rows (ExchangeRun::note_produced): the ends of its middle.
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
