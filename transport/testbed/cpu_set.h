// Which CPUs the real exchange runs on when every emulated host shares one
// machine. By default one: the fastest of those this process may use, probed
// in turn, so that another process keeping a core busy leaves the exchange the
// other one (the simulator then models exactly that: one core for all hosts,
// the profile's `cores`). Agent processes inherit the choice.
#ifndef EXSIM_TRANSPORT_TESTBED_CPU_SET_H_
#define EXSIM_TRANSPORT_TESTBED_CPU_SET_H_

#include <chrono>
#include <string>
#include <vector>

namespace exsim::transport {

// The CPUs this process may run on (sched_getaffinity), ascending.
std::vector<int> allowed_cpus();

// "0", "0,2", "1-3", "all": CPUs of this machine. Throws UsageError naming
// `flag` when the text is malformed, or names a CPU this process may not use.
std::vector<int> parse_cpu_list(const std::string& text, const std::string& flag);

// Of `cpus`, the one least used by other processes over a short look at
// /proc/stat (a process spinning on a core makes it twice as slow for us),
// and among those nearly as idle, the one whose speed probe is fastest.
int quietest_cpu(const std::vector<int>& cpus);

// Runs the calling thread, and every thread and process it starts from now
// on, on `cpus` (call it before any other thread starts).
// Throws std::runtime_error when the kernel refuses.
void pin_process(const std::vector<int>& cpus);

// What other processes take of this process's CPUs over an interval: their
// busy time (/proc/stat, sampled at the kernel's tick) less this process's CPU
// and that of its children (the agents, as they report it). A process that
// keeps our core busy does not slow a speed probe (a waking thread runs its
// millisecond at once) but takes half the core from a run: this says so.
class CoreShare {
 public:
  CoreShare();  // the interval starts
  // Their share of the CPUs' time since the start, given the CPU seconds our
  // children spent meanwhile.
  double others_share(double children_cpu_s) const;

 private:
  std::vector<int> cpus_;
  double busy_start_s_, self_start_s_;
  std::chrono::steady_clock::time_point wall_start_;
};

// Other processes may take this much of our CPUs' time (the kernel's own
// threads and the tick's sampling error stay under it) before a measurement is
// set aside.
inline constexpr double kOthersShare = 0.10;

// The process's CPUs as text: "1", "0-1".
std::string cpu_list_text(const std::vector<int>& cpus);

}  // namespace exsim::transport

#endif  // EXSIM_TRANSPORT_TESTBED_CPU_SET_H_
