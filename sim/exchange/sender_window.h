#ifndef EXSIM_SIM_EXCHANGE_SENDER_WINDOW_H_
#define EXSIM_SIM_EXCHANGE_SENDER_WINDOW_H_

#include <array>
#include <cstdint>

#include "models/results/bound.h"
#include "sim/engine/scheduler.h"

namespace exsim::sim {

// What the senders' threads spent between the moment each had produced half
// its rows and the moment it produced its last, summed over the senders: the
// steady middle of a long exchange, whose rate fast-forwarding extends
// (sim/fast_forward.h). Each is marked as the thread plans its next input
// batch, when none of its time is left unattributed.
struct SenderWindow {
  std::int64_t rows = 0;
  SimTime blocked_ns = 0;
  std::array<SimTime, kBounds> time_ns{};
};

}  // namespace exsim::sim

#endif  // EXSIM_SIM_EXCHANGE_SENDER_WINDOW_H_
