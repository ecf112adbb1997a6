// The threads of a part still running, and a timed wait for the last to end:
// the waiter sleeps until then rather than checking on a timer, whose wake-ups
// would take CPU from the exchange on a machine that emulates several hosts.
#ifndef EXSIM_TRANSPORT_EXCHANGE_COUNTDOWN_H_
#define EXSIM_TRANSPORT_EXCHANGE_COUNTDOWN_H_

#include <chrono>
#include <condition_variable>
#include <mutex>

namespace exsim::transport {

class Countdown {
 public:
  void add(int count) {
    std::lock_guard lock(mutex_);
    left_ += count;
  }
  void count_down() {
    {
      std::lock_guard lock(mutex_);
      --left_;
    }
    changed_.notify_all();
  }
  // True once every counted thread has ended; false at the deadline.
  bool wait_until(std::chrono::steady_clock::time_point deadline) {
    std::unique_lock lock(mutex_);
    return changed_.wait_until(lock, deadline, [&] { return left_ <= 0; });
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  int left_ = 0;
};

}  // namespace exsim::transport

#endif  // EXSIM_TRANSPORT_EXCHANGE_COUNTDOWN_H_
