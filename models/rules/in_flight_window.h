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
#include <vector>

namespace exsim {

class InFlightWindow {
 public:
  // What a sender waits for: a channel's room (its index), or every channel idle.
  static constexpr int kEveryChannel = -1;

  InFlightWindow(int channels, int in_flight) : in_flight_(in_flight), calls_(static_cast<std::size_t>(channels), 0) {}

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
    int& calls = calls_[static_cast<std::size_t>(channel)];
    ++calls;
    ++total_;
    peak_ = std::max(peak_, calls);
  }
  // Its answer arrived.
  void close_call(int channel) {
    --calls_[static_cast<std::size_t>(channel)];
    --total_;
  }

  // Whether a sender waiting for `waiting_for` (a channel, or kEveryChannel)
  // may go on now that a call on `answered` has closed.
  bool frees(int waiting_for, int answered) const {
    return waiting_for == kEveryChannel ? idle() : waiting_for == answered && has_room(answered);
  }

 private:
  int in_flight_;
  std::vector<int> calls_;
  int total_ = 0;
  int peak_ = 0;
};

}  // namespace exsim

#endif  // EXSIM_MODELS_RULES_IN_FLIGHT_WINDOW_H_
