// Local agent processes for `exsim run`: starting
// `exsim agent` on loopback and reading the address it bound.
#ifndef EXSIM_TRANSPORT_AGENT_AGENT_PROCESS_H_
#define EXSIM_TRANSPORT_AGENT_AGENT_PROCESS_H_

#include <sys/types.h>

#include <chrono>
#include <string>
#include <vector>

namespace exsim::transport {

struct AgentProcess {
  pid_t pid = -1;
  std::string address;
  unsigned short port = 0;
};

// Starts `binary agent --listen 127.0.0.1:0 --token-file token_file`, on
// `cpus` only when given (`--cpus`), and waits (20 s at most) for the address
// it reports. Throws std::runtime_error naming what failed; an agent that does
// not report is killed.
AgentProcess spawn_agent(const std::string& binary, const std::string& token_file, const std::vector<int>& cpus = {});

// Asks every started agent (pid > 0) to stop, and kills any still running
// after `grace`: a stopped or wedged process never handles SIGTERM, and an
// unbounded wait would hang the run past its deadline.
// Agents that have said "bye" are first given `own_exit` to end by themselves
// (so that everything a process does at exit is done), then signalled.
void stop_agents(const std::vector<AgentProcess>& agents, std::chrono::milliseconds own_exit,
                 std::chrono::milliseconds grace);

}  // namespace exsim::transport

#endif  // EXSIM_TRANSPORT_AGENT_AGENT_PROCESS_H_
