// The cost of a call between processes now, from one-byte round trips with an
// echo process on the same CPU. The compute probe (speed_probe.h) misses a
// kind of slowdown this machine has: for a second or so, switching between
// processes costs a quarter to a third more while arithmetic and LZ4 run at
// their usual speed. The real exchange switches between its agents on every
// call, so such a burst slows a run by up to 30% (seen: `broadcast / once`, 950
// ms against 710-750, its RPC CPU 482 ms against 335-360) and the compute
// probes around it stay steady. In 80 runs of that row with this probe before
// and after each, the probe after the two slowest runs read 25-30% high; it
// read within 12% of its usual figure around every run within 8% of the usual
// wall-clock but two.
#ifndef EXSIM_TRANSPORT_TESTBED_CALL_PROBE_H_
#define EXSIM_TRANSPORT_TESTBED_CALL_PROBE_H_

#include <sys/types.h>

#include <vector>

namespace exsim::transport {

class CallProbe {
 public:
  // Starts the echo process (forked: it inherits this process's CPUs) and
  // probes three times for the usual figure. Throws std::runtime_error when
  // the system refuses.
  CallProbe();
  ~CallProbe();  // stops the echo process and waits for it
  CallProbe(const CallProbe&) = delete;
  CallProbe& operator=(const CallProbe&) = delete;

  // The 90th percentile of 200 one-byte round trips, in microseconds (about
  // 23 us on the development machine): the tail shows a burst that the median
  // of so few trips can miss. Larger is slower.
  double probe_us();

  // How far the larger of `before` and `after` is above the usual figure: the
  // median of every probe so far, these two and the first three included (a
  // burst is rare and brief, so the median is the quiet machine's). Only a
  // slowdown counts.
  double slowdown(double before, double after);

  pid_t echo_pid() const { return echo_; }

 private:
  int socket_ = -1;
  pid_t echo_ = -1;
  std::vector<double> history_us_;
};

// Calls agree with the usual figure when this much slower or less (quiet
// probes varied by up to 12%; those after the slowest runs, 25-30%).
inline constexpr double kSteadyCalls = 0.20;

}  // namespace exsim::transport

#endif  // EXSIM_TRANSPORT_TESTBED_CALL_PROBE_H_
