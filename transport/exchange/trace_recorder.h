// Spans of a host's real exchange threads for a timeline trace (models/results/trace.h),
// recorded from sender threads and reactor threads at once. Times are this
// host's steady clock from the recorder's start (one policy's runs).
#ifndef EXSIM_TRANSPORT_EXCHANGE_TRACE_RECORDER_H_
#define EXSIM_TRANSPORT_EXCHANGE_TRACE_RECORDER_H_

#include <chrono>
#include <mutex>
#include <string>

#include "models/results/trace.h"

namespace exsim::transport {

class TraceRecorder {
 public:
  using Clock = std::chrono::steady_clock;
  explicit TraceRecorder(std::size_t max_events) : trace_(max_events), origin_(Clock::now()) {}

  int track(const std::string& name) {
    std::lock_guard lock(mutex_);
    return trace_.track(0, "host", name);
  }
  void span(int tid, const char* name, Clock::time_point start, Clock::time_point end, std::int64_t rows = -1,
            std::int64_t bytes = -1) {
    std::lock_guard lock(mutex_);
    trace_.span(0, tid, name, ns(start), ns(end), rows, bytes);
  }
  std::string json(const std::string& source) {
    std::lock_guard lock(mutex_);
    return trace_.to_json(source);
  }

 private:
  std::int64_t ns(Clock::time_point t) const {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(t - origin_).count();
  }
  std::mutex mutex_;
  Trace trace_;
  const Clock::time_point origin_;
};

}  // namespace exsim::transport

#endif  // EXSIM_TRANSPORT_EXCHANGE_TRACE_RECORDER_H_
