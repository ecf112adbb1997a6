// The path from this host to a peer, measured through the data connection the
// exchange itself uses (not a separate tool): Ping calls, which the peer's
// reactor answers as soon as they arrive, one at a time for the round trip
// (the RPC layer's included, as an exchange's calls see it), and large ones,
// several in flight, for the bandwidth the pair achieves. `exsim calibrate
// --hosts` asks each agent for its paths, one host pair at a time, so that no
// two probes share a link.
#ifndef EXSIM_TRANSPORT_RPC_PEER_PROBE_H_
#define EXSIM_TRANSPORT_RPC_PEER_PROBE_H_

#include <chrono>
#include <cstddef>
#include <vector>

#include "transport/rpc/host.h"

namespace exsim::transport {

struct ProbeOptions {
  int round_trips = 200;                     // calls, one at a time
  std::size_t bulk_call_bytes = 1 << 20;      // each bulk call's body
  std::size_t bulk_bytes = 64u << 20;         // in all
  int bulk_in_flight = 4;
  std::chrono::seconds deadline{30};          // for the whole probe of one peer
};

struct PeerPath {
  std::vector<double> round_trip_ms;  // every call's, in order
  double bytes_per_s = 0;             // bulk calls' bodies over the time they took
};

// Probes host `to` from `host`, which must be connected (Host::connect).
// Throws std::runtime_error naming the peer when it does not answer in time.
PeerPath probe_peer(Host& host, int to, const ProbeOptions& options);

}  // namespace exsim::transport

#endif  // EXSIM_TRANSPORT_RPC_PEER_PROBE_H_
