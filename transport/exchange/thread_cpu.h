// CPU time of the calling thread, for the measured CPU by stage.
#ifndef EXSIM_TRANSPORT_EXCHANGE_THREAD_CPU_H_
#define EXSIM_TRANSPORT_EXCHANGE_THREAD_CPU_H_

#include <atomic>
#include <cstdint>
#include <ctime>

namespace exsim::transport {

inline std::int64_t thread_cpu_ns() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

// Adds the thread CPU time of a scope to a stage's counter.
class CpuScope {
 public:
  explicit CpuScope(std::atomic<std::int64_t>& stage) : stage_(stage), start_(thread_cpu_ns()) {}
  ~CpuScope() { stage_ += thread_cpu_ns() - start_; }
  CpuScope(const CpuScope&) = delete;
  CpuScope& operator=(const CpuScope&) = delete;

 private:
  std::atomic<std::int64_t>& stage_;
  std::int64_t start_;
};

}  // namespace exsim::transport

#endif  // EXSIM_TRANSPORT_EXCHANGE_THREAD_CPU_H_
