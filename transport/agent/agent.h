// `exsim agent`: one host of a real exchange run, in its own process. It
// listens for one coordinator, which must present the shared token (other
// connections are refused and the agent keeps listening); then it
// sets up its host (data port, connections to every peer) and runs its part of
// each exchange the coordinator asks for, reporting what it measured. It exits
// when told to, or when the coordinator goes away.
#ifndef EXSIM_TRANSPORT_AGENT_AGENT_H_
#define EXSIM_TRANSPORT_AGENT_AGENT_H_

#include <chrono>
#include <string>

namespace exsim::transport {

struct AgentOptions {
  std::string listen_address = "127.0.0.1";
  unsigned short listen_port = 0;  // 0: any; the bound port is printed
  std::string token;
  std::chrono::seconds idle_timeout{600};  // no coordinator message for this long: exit
  // Serve coordinators one after another (listen_port must be fixed: each
  // session binds it anew), as `validate --hosts` needs: a run a session.
  bool keep_serving = false;
};

// Serves one coordinator. Prints "listening ADDRESS:PORT" on stdout once bound.
// Returns the process exit code.
int run_agent(const AgentOptions& options);

}  // namespace exsim::transport

#endif  // EXSIM_TRANSPORT_AGENT_AGENT_H_
