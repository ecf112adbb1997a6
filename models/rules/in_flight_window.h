// The in-flight bound of one sender's channels (docs/impala.md §2.1), shared
// by the simulator and the real exchange, as the receiver queue is
// (receiver_queue.h), so that both apply one rule:
// - a call may be sent on a channel while fewer than `in_flight` are in flight
//   on it; the sender thread, which alone sends, otherwise blocks whole until
//   one of that channel's calls is answered (head-of-line, §2.3);
// - at the end of the stream it waits until no call is in flight on any
//   channel, then sends end-of-stream on every channel (§2.3).
// Counts only: the caller does the waiting (events in the simulator, a
// condition variable in the real exchange) and asks frees() whether an answer
// ends it.
#ifndef EXSIM_MODELS_RULES_IN_FLIGHT_WINDOW_H_
#define EXSIM_MODELS_RULES_IN_FLIGHT_WINDOW_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <vector>

namespace exsim {

class InFlightWindow {
 public:
  // What a sender waits for: a channel's room (its index), or every channel idle.
  static constexpr int kEveryChannel = -1;

  // A channel's count is a byte (a simulated sender may have millions of
  // channels): at most kMostInFlight calls each, well above a policy's 64.
  static constexpr int kMostInFlight = 255;
  InFlightWindow(int channels, int in_flight) : in_flight_(in_flight), calls_(static_cast<std::size_t>(channels), 0) {
    if (in_flight < 1 || in_flight > kMostInFlight) throw std::invalid_argument("InFlightWindow: in_flight out of range");
  }

  // Whether a batch may be sent on `channel` now.
  bool has_room(int channel) const { return calls_[static_cast<std::size_t>(channel)] < in_flight_; }
  // Whether no call is in flight on any channel.
  bool idle() const { return total_ == 0; }
  int in_flight(int channel) const { return calls_[static_cast<std::size_t>(channel)]; }
  int total() const { return total_; }
  // The most calls ever in flight at once on one channel.
  int peak() const { return peak_; }

  // A call sent on `channel` (end-of-stream calls too, sent once it is idle).
  void open_call(int channel) {
    std::uint8_t& calls = calls_[static_cast<std::size_t>(channel)];
    if (calls == kMostInFlight) throw std::logic_error("InFlightWindow: a channel past its count's range");
    ++calls;
    ++total_;
    peak_ = std::max<int>(peak_, calls);
  }
  // Its answer arrived.
  void close_call(int channel) {
    --calls_[static_cast<std::size_t>(channel)];
    --total_;
  }

  // Every call answered (a sender that knows none is left in flight).
  void close_all() {
    std::fill(calls_.begin(), calls_.end(), 0);
    total_ = 0;
  }

  // Whether a sender waiting for `waiting_for` (a channel, or kEveryChannel)
  // may go on now that a call on `answered` has closed.
  bool frees(int waiting_for, int answered) const {
    return waiting_for == kEveryChannel ? idle() : waiting_for == answered && has_room(answered);
  }

 private:
  int in_flight_;
  std::vector<std::uint8_t> calls_;
  int total_ = 0;
  int peak_ = 0;
};

}  // namespace exsim

#endif  // EXSIM_MODELS_RULES_IN_FLIGHT_WINDOW_H_
