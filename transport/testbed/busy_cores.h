// Keeps CPUs from going idle for as long as a BusyCores lives: a thread on
// each, at the kernel's lowest scheduling class (SCHED_IDLE), spinning. Any
// other thread that becomes runnable on the CPU preempts it at once, and it
// takes next to nothing of a busy one (its weight is 3 against a normal
// thread's 1024), so it only fills the gaps in which the core would halt.
// Needs no privilege, and touches no other CPU.
//
// Why: calibrate measures the CPU of a call through the real exchange with
// its core held so (transport/calibration/benchmarks.cpp). On a virtual
// machine whose idle vCPUs halt, a one-row call that finds its core halted
// costs more CPU, not only more time: 45-58 us a side free to halt, 36 us held
// busy, while a CPU-bound exchange, whose core never halts, pays what the
// lower figure predicts (docs/validation.md, "Calls on a busy core").
// /dev/cpu_dma_latency (awake_cores.h) would hold every CPU awake, and needs
// root. Not for the runs themselves: a vCPU that never halts is one the host
// preempts more, and a latency-bound run's wake-ups came out later.
//
// The threads belong to this process, so its own CPU time counts theirs:
// CoreShare sees no other process in them.
#ifndef EXSIM_TRANSPORT_TESTBED_BUSY_CORES_H_
#define EXSIM_TRANSPORT_TESTBED_BUSY_CORES_H_

#include <time.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

namespace exsim::transport {

class BusyCores {
 public:
  // Starts a spinning thread on each of `cpus`; held() says whether all began.
  explicit BusyCores(const std::vector<int>& cpus);
  ~BusyCores();
  BusyCores(const BusyCores&) = delete;
  BusyCores& operator=(const BusyCores&) = delete;

  bool held() const { return why_not_.empty(); }
  // Why not, when not held: "CPU 3: sched_setaffinity: Invalid argument".
  const std::string& why_not() const { return why_not_; }
  // The spinning threads' CPU time so far, in seconds.
  double cpu_seconds() const;

 private:
  std::atomic<bool> stop_{false};
  std::vector<std::thread> threads_;
  std::vector<clockid_t> clocks_;  // of the threads that spin
  std::string why_not_;
};

}  // namespace exsim::transport

#endif  // EXSIM_TRANSPORT_TESTBED_BUSY_CORES_H_
