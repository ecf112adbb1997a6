// The in-flight bound of a sender's channels (docs/impala.md §2.1), as the
// simulator applies it (models/rules/in_flight_window.h), on threads: the
// sender thread takes a slot before sending and blocks, whole, while its
// channel is full (head-of-line, §2.3); the reactor thread gives the slot back
// when the response arrives. Every wait has a deadline, and cancel() wakes the
// sender when the run fails.
//
// A wait ends with a wake-up: the reactor frees the slot and notifies, the
// kernel runs the sender again some microseconds later. Each wait's wake-up
// (from the release that freed what it waits for to the sender running) is
// kept, since neither a call's network nor its receiver time contains it.
//
// Thread safety: acquire/wait_idle from the sender thread; release/cancel from
// any thread.
#ifndef EXSIM_TRANSPORT_EXCHANGE_CHANNEL_WINDOW_H_
#define EXSIM_TRANSPORT_EXCHANGE_CHANNEL_WINDOW_H_

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <vector>

#include "models/base/histogram.h"
#include "models/rules/in_flight_window.h"

namespace exsim::transport {

class ChannelWindow {
 public:
  using Clock = std::chrono::steady_clock;

  ChannelWindow(int channels, int in_flight) : window_(channels, in_flight) {}

  // Takes a slot on `channel`, waiting until one is free. Returns false when the
  // deadline passed or the window was cancelled. Adds the time spent waiting.
  bool acquire(int channel, Clock::time_point deadline, Clock::duration& waited) {
    std::unique_lock lock(mutex_);
    const auto start = Clock::now();
    const bool ok = wait(lock, channel, deadline, [&] { return cancelled_ || window_.has_room(channel); });
    waited += Clock::now() - start;
    if (!ok || cancelled_) return false;
    window_.open_call(channel);
    return true;
  }

  // The call on `channel` has completed. Releases come from one thread, the
  // reactor of the sender's host (rpc/host.h), which is what makes the wake-up
  // outside the lock below safe.
  void release(int channel) {
    std::unique_lock lock(mutex_);
    window_.close_call(channel);
    if (!window_.frees(waiting_for_, channel)) return;  // the sender is not waiting for this: nothing to wake
    if (freed_at_ == Clock::time_point{}) freed_at_ = Clock::now();
    // The end of the stream: the sender may return from wait_idle and destroy
    // the window as soon as it can take the mutex, so it is woken under the lock.
    if (waiting_for_ == kAll) {
      freed_.notify_all();
      return;
    }
    // A slot: woken after the unlock, so that the sender does not wake only to
    // block on the mutex this thread still holds (two more switches a wait). The
    // window outlives the wake-up: a sender that takes the slot sends again and
    // cannot pass wait_idle before that call's release, which runs on this thread
    // after this one; one that fails keeps its window until the host stops
    // (ExchangePart retires it).
    lock.unlock();
    freed_.notify_all();
  }

  // Waits until no call is in flight on any channel (end of stream, docs/impala.md §2.3).
  bool wait_idle(Clock::time_point deadline, Clock::duration& waited) {
    std::unique_lock lock(mutex_);
    const auto start = Clock::now();
    const bool ok = wait(lock, kAll, deadline, [&] { return cancelled_ || window_.idle(); });
    waited += Clock::now() - start;
    return ok && !cancelled_;
  }

  void cancel(const std::string& reason) {
    std::lock_guard lock(mutex_);
    cancelled_ = true;
    if (reason_.empty()) reason_ = reason;
    freed_.notify_all();
  }

  // The most calls ever in flight at once on one channel: never above in_flight.
  int peak_in_flight() const {
    std::lock_guard lock(mutex_);
    return window_.peak();
  }
  std::string cancel_reason() const {
    std::lock_guard lock(mutex_);
    return reason_;
  }
  // The wake-ups of the waits so far (nanoseconds).
  LogHistogram wakes() const {
    std::lock_guard lock(mutex_);
    return wakes_;
  }

 private:
  static constexpr int kNone = -2, kAll = InFlightWindow::kEveryChannel;

  // Waits (unless `ready` holds already) for `what` (a channel, or kAll) and
  // keeps the wake-up.
  template <typename Ready>
  bool wait(std::unique_lock<std::mutex>& lock, int what, Clock::time_point deadline, Ready ready) {
    if (ready()) return true;
    waiting_for_ = what;
    freed_at_ = {};
    const bool ok = freed_.wait_until(lock, deadline, ready);
    if (freed_at_ != Clock::time_point{}) {
      wakes_.add(std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - freed_at_).count());
    }
    waiting_for_ = kNone;
    return ok;
  }

  mutable std::mutex mutex_;
  std::condition_variable freed_;
  InFlightWindow window_;  // under mutex_
  bool cancelled_ = false;
  std::string reason_;
  int waiting_for_ = kNone;      // what the sender waits for now
  Clock::time_point freed_at_;   // when that was freed, if it was
  LogHistogram wakes_;
};

}  // namespace exsim::transport

#endif  // EXSIM_TRANSPORT_EXCHANGE_CHANNEL_WINDOW_H_
