// The in-flight bound of a sender's channels (reference section 2.1): at most
// `in_flight` calls per channel. The sender thread takes a slot before sending
// and blocks, whole, while its channel is full (head-of-line, section 2.3);
// the reactor thread gives the slot back when the response arrives. Every wait
// has a deadline, and cancel() wakes the sender when the run fails.
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

namespace exsim::transport {

class ChannelWindow {
 public:
  using Clock = std::chrono::steady_clock;

  ChannelWindow(int channels, int in_flight) : in_flight_(in_flight), used_(static_cast<std::size_t>(channels), 0) {}

  // Takes a slot on `channel`, waiting until one is free. Returns false when the
  // deadline passed or the window was cancelled. Adds the time spent waiting.
  bool acquire(int channel, Clock::time_point deadline, Clock::duration& waited) {
    std::unique_lock lock(mutex_);
    const auto start = Clock::now();
    const bool ok = freed_.wait_until(lock, deadline, [&] { return cancelled_ || used_[channel] < in_flight_; });
    waited += Clock::now() - start;
    if (!ok || cancelled_) return false;
    ++used_[channel];
    ++total_;
    if (used_[channel] > peak_) peak_ = used_[channel];
    return true;
  }

  // The call on `channel` has completed.
  void release(int channel) {
    // Notify under the lock: the sender may return from its wait and destroy the
    // window as soon as it can take the mutex.
    std::lock_guard lock(mutex_);
    --used_[channel];
    --total_;
    freed_.notify_all();
  }

  // Waits until no call is in flight on any channel (end of stream, section 2.3).
  bool wait_idle(Clock::time_point deadline, Clock::duration& waited) {
    std::unique_lock lock(mutex_);
    const auto start = Clock::now();
    const bool ok = freed_.wait_until(lock, deadline, [&] { return cancelled_ || total_ == 0; });
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
    return peak_;
  }
  std::string cancel_reason() const {
    std::lock_guard lock(mutex_);
    return reason_;
  }

 private:
  const int in_flight_;
  mutable std::mutex mutex_;
  std::condition_variable freed_;
  std::vector<int> used_;
  int total_ = 0;
  int peak_ = 0;
  bool cancelled_ = false;
  std::string reason_;
};

}  // namespace exsim::transport

#endif  // EXSIM_TRANSPORT_EXCHANGE_CHANNEL_WINDOW_H_
