// CPU time of the calling thread, for the measured CPU by stage.
#ifndef EXSIM_TRANSPORT_NET_THREAD_CPU_H_
#define EXSIM_TRANSPORT_NET_THREAD_CPU_H_

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <ctime>

#include <sys/resource.h>

namespace exsim::transport {

inline std::int64_t thread_cpu_ns() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

// Page faults the calling thread has taken that needed no I/O: each a page the
// process touched for the first time (the kernel finding and zeroing it), or
// one it had given back.
inline std::int64_t thread_minor_faults() {
  rusage usage{};
  getrusage(RUSAGE_THREAD, &usage);
  return usage.ru_minflt;
}

// Keeps the calling thread busy until its CPU clock reads `until_ns`. The
// operators around an exchange (the scan or join feeding a sender, the one
// reading a receiver's rows) use CPU on their host; the model charges
// produce_rows_per_s and consume_rows_per_s as CPU, so the real exchange burns
// that CPU too rather than sleeping, and competes for cores as they would.
// A burn ends past its target by up to one turn of its loop (a clock read, a
// system call under a hypervisor, and a few hundred additions), and the stage
// measuring it reads the clock once more: that excess comes off the thread's
// next burn, so that over a run an operator spends what its rate says
// (without it, a 1024-row batch at 10^8 rows a second, 10.2 us, burned 7-11%
// more).
inline thread_local std::int64_t t_burn_excess_ns = 0;
// The least CPU a read of the thread's clock takes, of a few.
inline std::int64_t thread_clock_read_ns() {
  static thread_local const std::int64_t read_ns = [] {
    std::int64_t least = INT64_MAX;
    for (int i = 0; i < 8; ++i) {
      const std::int64_t a = thread_cpu_ns();
      least = std::min(least, thread_cpu_ns() - a);
    }
    return least;
  }();
  return read_ns;
}
inline void burn_thread_cpu_until(std::int64_t until_ns) {
  until_ns -= t_burn_excess_ns;
  std::int64_t now = thread_cpu_ns();
  volatile std::uint64_t sink = 0;
  while (now < until_ns) {
    for (int i = 0; i < 256; ++i) sink = sink + static_cast<std::uint64_t>(i);  // a few hundred ns between reads
    now = thread_cpu_ns();
  }
  // Beyond its budget already (the generator's work before it, on a cold
  // cache), the excess is carried too, up to a millisecond.
  t_burn_excess_ns = std::min<std::int64_t>(now - until_ns + thread_clock_read_ns(), 1'000'000);
}

// CPU this thread has charged to stages so far. What a sender or consumer
// thread spends beyond its stages (waiting for a window or a batch, handing a
// call to the reactor, waking up) is RPC work that the reactor does not do:
// ThreadLedger counts it at the thread's end, so that the stages add up to the
// threads' whole CPU, as the model's do.
inline thread_local std::int64_t t_staged_ns = 0;

// Adds `ns` of this thread's CPU to a stage's counter.
inline void charge(std::atomic<std::int64_t>& stage, std::int64_t ns) {
  stage += ns;
  t_staged_ns += ns;
}

// A thread's CPU from its construction that no stage took.
class ThreadLedger {
 public:
  ThreadLedger() : cpu_start_(thread_cpu_ns()), staged_start_(t_staged_ns) {}
  std::int64_t unstaged_ns() const { return thread_cpu_ns() - cpu_start_ - (t_staged_ns - staged_start_); }

 private:
  std::int64_t cpu_start_;
  std::int64_t staged_start_;
};

// Adds the thread CPU time of a scope to a stage's counter.
class CpuScope {
 public:
  explicit CpuScope(std::atomic<std::int64_t>& stage) : stage_(stage), start_(thread_cpu_ns()) {}
  ~CpuScope() { charge(stage_, thread_cpu_ns() - start_); }
  CpuScope(const CpuScope&) = delete;
  CpuScope& operator=(const CpuScope&) = delete;
  std::int64_t start_ns() const { return start_; }

 private:
  std::atomic<std::int64_t>& stage_;
  std::int64_t start_;
};

}  // namespace exsim::transport

#endif  // EXSIM_TRANSPORT_NET_THREAD_CPU_H_
