// A user-space delay line between a peer's client and server, for the per-RPC
// benchmark at a round trip such as 0.2 ms on a kernel without sch_netem (tc's
// netem qdisc): a TCP proxy on loopback that holds every chunk it reads for a
// fixed one-way delay, in order, before writing it on. Its own process, so
// that its CPU is not charged to either side; it measures the delay it
// achieved, since a timer's overshoot on a virtual machine is comparable to
// the delay itself.
#ifndef EXSIM_BENCH_PEERS_DELAY_PROXY_H_
#define EXSIM_BENCH_PEERS_DELAY_PROXY_H_

#include <sys/types.h>

#include <cstdint>

namespace peers {

struct DelayProxy {
  pid_t pid = -1;
  int port = 0;    // where the client connects
  int result = -1;  // pipe the proxy writes its Achieved to when it stops
};

struct Achieved {
  double mean_one_way_us = 0;
  std::int64_t chunks = 0;
  double cpu_s = 0;
};

// Forks the proxy: it listens on 127.0.0.1 at an ephemeral port and forwards
// every connection to `upstream_port`, each direction delayed by
// `one_way_delay_us`. Throws std::runtime_error if it does not start.
DelayProxy start_delay_proxy(int upstream_port, std::int64_t one_way_delay_us);

// Stops the proxy (SIGTERM) and returns what it achieved.
Achieved stop_delay_proxy(const DelayProxy& proxy);

}  // namespace peers

#endif  // EXSIM_BENCH_PEERS_DELAY_PROXY_H_
