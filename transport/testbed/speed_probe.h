// The machine's speed now, from a fixed piece of work timed by the wall clock.
// On a shared virtual machine a core can run at half speed for seconds or
// minutes while its sibling is busy (seen on the development machine: the same
// loop took 11 ms, then 24 ms), and work on its caches can slow down while its
// arithmetic does not; the thread CPU clocks count the lost time as CPU, so
// only the wall clock shows it. validate and calibrate probe
// around each measurement and keep only those taken at a steady speed.
#ifndef EXSIM_TRANSPORT_TESTBED_SPEED_PROBE_H_
#define EXSIM_TRANSPORT_TESTBED_SPEED_PROBE_H_

#include <vector>

namespace exsim::transport {

// Microseconds of wall clock for a fixed piece of work, arithmetic and LZ4 over
// a 64 KiB block (about 0.9 ms here): the least of three tries, so that one
// interrupt does not count. Larger is slower.
double probe_speed_us();

// The speed now: the median of three probes (one probe's least of three tries
// still varied by 7% between the hosts of one machine probed together).
double speed_now_us();

// How far a sample taken between probes `before` and `after` strays from the
// reference speed: the larger of |before / reference - 1| and |after /
// reference - 1|.
double speed_deviation(double before, double after, double reference);

// Speeds agree when they deviate this much or less (a steady core's probes
// varied by 3% on the development machine; a busy sibling slows it by 50-120%).
inline constexpr double kSteadySpeed = 0.12;

}  // namespace exsim::transport

#endif  // EXSIM_TRANSPORT_TESTBED_SPEED_PROBE_H_
