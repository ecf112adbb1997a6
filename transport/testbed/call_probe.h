// The cost of a call between processes now, from one-byte round trips with an
// echo process on the same CPU. The compute probe (speed_probe.h) misses a
// kind of slowdown this machine has: for a second or so, or for minutes,
// switching between processes costs a quarter to a third more while arithmetic
// and LZ4 run at their usual speed. The real exchange switches between its agents on every
// call, so such a burst slows a run by up to 30% (seen: `broadcast / once`, 950
// ms against 710-750, its RPC CPU 482 ms against 335-360) and the compute
// probes around it stay steady. In 80 runs of that row with this probe before
// and after each, the probe after the two slowest runs read 25-30% high; it
// read within 12% of its usual figure around every run within 8% of the usual
// wall-clock but two.
#ifndef EXSIM_TRANSPORT_TESTBED_CALL_PROBE_H_
#define EXSIM_TRANSPORT_TESTBED_CALL_PROBE_H_

#include <sys/types.h>

namespace exsim::transport {

class CallProbe {
 public:
  // Starts the echo process (forked: it inherits this process's CPUs).
  // Throws std::runtime_error when the system refuses.
  CallProbe();
  ~CallProbe();  // stops the echo process and waits for it
  CallProbe(const CallProbe&) = delete;
  CallProbe& operator=(const CallProbe&) = delete;

  // The 90th percentile of 200 one-byte round trips, in microseconds (about
  // 23 us on the development machine): the tail shows a burst that the median
  // of so few trips can miss. Larger is slower.
  double probe_us();

  // The median of three probes: the usual figure a measurement's probes are
  // held to, taken when its costs are (a round's start, a calibration's
  // repetitions). Calls may stay dearer for minutes; runs measured then with
  // costs calibrated then are sound, so the figure is the current one, not a
  // long-run one.
  double usual_us();

  pid_t echo_pid() const { return echo_; }

 private:
  int socket_ = -1;
  pid_t echo_ = -1;
};

// How far the larger of two call probes is above the usual figure; only a
// slowdown counts against a measurement.
double call_slowdown(double before_us, double after_us, double usual_us);

// Calls agree with the usual figure when this much slower or less (quiet
// probes varied by up to 12%; those after the slowest runs, 25-30%).
inline constexpr double kSteadyCalls = 0.20;

}  // namespace exsim::transport

#endif  // EXSIM_TRANSPORT_TESTBED_CALL_PROBE_H_
