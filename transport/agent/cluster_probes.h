// What an agent measures of its own host for `exsim calibrate --hosts`: the
// path to a peer through the exchange's own data connection (rpc/peer_probe.h)
// and the host's CPU costs, by running `exsim calibrate` on it as a process of
// its own, exactly as a user would on that machine. Each takes the
// coordinator's request and gives the reply.
#ifndef EXSIM_TRANSPORT_AGENT_CLUSTER_PROBES_H_
#define EXSIM_TRANSPORT_AGENT_CLUSTER_PROBES_H_

#include <nlohmann/json.hpp>

#include "transport/rpc/host.h"

namespace exsim::transport {

// {"op": "probe", "to": J, "round_trips", "bulk_bytes"} -> {"op": "probed",
// "to", "round_trip_ms": [...], "bytes_per_s"}.
nlohmann::json probe_reply(Host& host, const nlohmann::json& request);

// {"op": "calibrate_cpu", "repetitions", "scale"} -> {"op": "calibrated",
// "exit_code", "profile": the profile's JSON text ("" when none), "log": the
// end of its output}. Runs this binary's `calibrate` and waits for it.
nlohmann::json calibrate_cpu_reply(const nlohmann::json& request);

// The CPUs this process may use: what the agent tells the coordinator of its
// host on setup, with the boot id below.
int usable_cores();
// The running kernel's boot id: agents that report the same one share a machine.
std::string boot_id();

}  // namespace exsim::transport

#endif  // EXSIM_TRANSPORT_AGENT_CLUSTER_PROBES_H_
