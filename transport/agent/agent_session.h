// The agents of one run and the control conversation with each: started here
// (one process per scenario host, a private token file) or reached through a
// hosts file; claimed, set up and connected to one another on start; messages
// awaited by their op, an agent's error or death failing the run with its name;
// told to shut down at the end. The queries they run are the coordinator's
// (coordinator.h): this class knows the protocol's start and end only.
#ifndef EXSIM_TRANSPORT_AGENT_AGENT_SESSION_H_
#define EXSIM_TRANSPORT_AGENT_AGENT_SESSION_H_

#include <chrono>
#include <cstddef>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/scenario/scenario.h"
#include "transport/agent/agent_process.h"
#include "transport/agent/control_channel.h"
#include "transport/agent/coordinator.h"
#include "transport/net/reactor.h"
#include "transport/net/stall_watch.h"

namespace exsim::transport {

class AgentSession {
 public:
  using json = nlohmann::json;
  using Clock = std::chrono::steady_clock;

  AgentSession(const Scenario& scenario, const RunOptions& options);
  // Agents that said "bye" end by themselves; any other (a failed run) is
  // signalled at once, then killed.
  ~AgentSession();

  // Starts or reaches every agent, each claimed, set up and connected to its peers.
  void start();
  std::size_t size() const { return channels_.size(); }
  // "agent h1 (pid 123)" or "agent h1 at ADDRESS:PORT".
  std::string agent_name(std::size_t h) const;

  // Waits for a message `op` from agent h, putting others aside; throws,
  // naming the agent, on its error, its death or the deadline.
  json expect(std::size_t h, const std::string& op, Clock::time_point deadline);
  // The next message of h not yet looked at, without waiting: a "done" put
  // aside first, then the channel's next.
  std::optional<json> next_unseen(std::size_t h);
  // Keeps a message for a later expect().
  void put_aside(std::size_t h, json message) { inbox_[h].push_back(std::move(message)); }
  void broadcast(const json& message);
  void send(std::size_t h, const json& message) { channels_[h]->send(message.dump()); }
  // Agent h's "ready": its data port, cores and host name.
  const json& ready(std::size_t h) const { return ready_.at(h); }
  // Whether h's control connection closed, and why.
  bool closed(std::size_t h) const { return channels_[h]->closed(); }
  std::string close_reason(std::size_t h) const { return channels_[h]->error(); }
  // "; agent h2 (pid 7) is lost: why" for each agent whose connection closed, after a
  // moment for the closes to be reported: a failure one agent sees is often
  // another's death.
  std::string dead_agents();
  // Rung whenever any agent's message arrives or its connection closes.
  Doorbell& doorbell() { return *doorbell_; }

  // The coordinator's own longest stall over a span (its process not
  // running stretches the wall-clock it measures); nullopt when none.
  std::optional<StallWatch::Stall> longest_stall(Clock::time_point from, Clock::time_point to) const;

  // Asks every agent to hold its machine's cores awake (testbed/awake_cores.h)
  // or to let them sleep; then, for each host, "held", "free to sleep" or why
  // they could not be held ("not held: /dev/cpu_dma_latency: ...").
  void hold_cores_awake(bool hold);
  const std::string& cores_awake(std::size_t h) const { return cores_awake_.at(h); }

  // Tells every agent to shut down; their "bye" messages, in host order.
  std::vector<json> shut_down();

 private:
  void remove_token_file();

  const Scenario& scenario_;
  const RunOptions& options_;
  Reactor reactor_;
  // Once the channels are open: the coordinator's own stalls, and each
  // control connection's (heartbeats keep data on it, so a link down shows).
  std::shared_ptr<StallWatch> stalls_;
  std::vector<AgentProcess> agents_;
  std::vector<std::unique_ptr<ControlChannel>> channels_;
  std::vector<std::deque<json>> inbox_;
  std::vector<json> ready_;
  std::vector<std::string> cores_awake_;  // per host: hold_cores_awake's answer ("" before it)
  std::shared_ptr<Doorbell> doorbell_ = std::make_shared<Doorbell>();
  std::string token_file_;
  bool said_bye_ = false;  // every agent answered "shutdown"
};

}  // namespace exsim::transport

#endif  // EXSIM_TRANSPORT_AGENT_AGENT_SESSION_H_
