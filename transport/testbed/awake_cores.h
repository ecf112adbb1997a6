// Keeps this machine's CPUs out of idle states slower to leave than polling,
// for as long as an AwakeCores lives, through the kernel's PM QoS interface:
// /dev/cpu_dma_latency held open with 0 written, as tuned's
// latency-performance profile and latency benchmarks do. The kernel drops
// the request when the file closes, so a process that dies leaves none behind.
//
// Why: the model has a core start a woken thread at once. A core that sleeps
// must first wake, and where that is dear every call and ping that finds its
// thread's core asleep waits for it: on a virtual machine whose idle vCPUs
// halt, a ping between threads on two vCPUs took 60-90 us instead of 8-13 us
// with the cores held awake, and a one-row call's CPU fourfold
// (docs/validation.md, "On a real cluster"). A cluster's calibration and
// validation measure with the cores held, so that their figures are the
// exchange's and not its hosts' sleep; how much sleep costs is measured
// apart (calibrate --hosts, "ping_cores_free_ms").
#ifndef EXSIM_TRANSPORT_TESTBED_AWAKE_CORES_H_
#define EXSIM_TRANSPORT_TESTBED_AWAKE_CORES_H_

#include <string>

namespace exsim::transport {

class AwakeCores {
 public:
  // Asks for the cores to be held awake; held() says whether the kernel took it.
  AwakeCores();
  ~AwakeCores();
  AwakeCores(const AwakeCores&) = delete;
  AwakeCores& operator=(const AwakeCores&) = delete;

  bool held() const { return fd_ >= 0; }
  // Why not, when not held: "/dev/cpu_dma_latency: Permission denied (needs root)".
  const std::string& why_not() const { return why_not_; }

 private:
  int fd_ = -1;
  std::string why_not_;
};

}  // namespace exsim::transport

#endif  // EXSIM_TRANSPORT_TESTBED_AWAKE_CORES_H_
