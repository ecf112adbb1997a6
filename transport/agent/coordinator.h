// `exsim run`: runs a scenario on the real exchange. It starts one agent
// process per scenario host on this machine (or uses agents already running
// elsewhere, from a hosts file), hands each its host, and drives the queries:
// queries one after another, a query's exchanges together unless `after`
// orders them, each exchange prepared on every agent before any starts. It adds
// up what the agents measured into the results format, with source "measured".
// Every wait has a deadline; a dead agent, a bad batch or a timeout fails the
// run with a message saying which.
#ifndef EXSIM_TRANSPORT_AGENT_COORDINATOR_H_
#define EXSIM_TRANSPORT_AGENT_COORDINATOR_H_

#include <chrono>
#include <string>
#include <vector>

#include "models/results/results.h"
#include "models/results/trace.h"
#include "models/scenario/scenario.h"

namespace exsim::transport {

struct RunOptions {
  std::string scenario_text;  // the file as read, sent to every agent with the overrides
  std::string scenario_file;
  std::vector<std::string> overrides;
  std::vector<std::string> policies;  // empty: every policy
  bool delay_line = true;             // impose the RTTs (off for real hosts)
  bool nic_cap = false;               // pace each host's outbound and inbound bytes at nic_gbps
  std::string hosts_file;             // agents already running: one ADDRESS:PORT per scenario host
  std::string token;                  // with hosts_file: the agents' token
  bool spare_agents_ok = false;       // with hosts_file: more agents than hosts, the first ones used
  // The agents hold their machines' cores awake for the session
  // (testbed/awake_cores.h), each host's result saying whether they could.
  bool hold_cores_awake = false;
  std::string exsim_binary;           // to start local agents
  // Local agents only: host h's agent runs on host_cpus[h] (empty: every
  // agent wherever the kernel puts it).
  std::vector<std::vector<int>> host_cpus;
  std::chrono::seconds timeout{600};  // for each exchange
  // Each agent's speed probe just before and just after each policy's run,
  // into the results' hosts (a cluster's validation holds runs to the speed
  // its hosts were calibrated at).
  bool probe_speed = false;
  // When set, every policy's run is traced into it: the hosts' threads as
  // processes "<policy>: <host>", each agent keeping an even sample of at most
  // trace_events / hosts spans (and no more than a control message holds).
  Trace* trace = nullptr;
  std::size_t trace_events = Trace::kDefaultMaxEvents;
};

// Throws std::runtime_error naming what failed.
std::vector<RunResult> run_on_agents(const Scenario& scenario, const RunOptions& options);

class AgentSession;
// The same on agents already started and set up with `scenario` (a session
// that goes on to other work, such as calibrate --hosts' probes): the session
// stays open, so the results lack what only the agents' goodbyes tell (each
// host's peak RSS and process CPU, the delays achieved).
std::vector<RunResult> run_on_session(AgentSession& session, const Scenario& scenario, const RunOptions& options);

}  // namespace exsim::transport

#endif  // EXSIM_TRANSPORT_AGENT_COORDINATOR_H_
