#include "transport/agent/agent_session.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <future>
#include <numeric>
#include <stdexcept>
#include <thread>
#include <tuple>

#include <fmt/format.h>

#include "models/base/error.h"
#include "models/scenario/scenario_loader.h"
#include "transport/agent/deadlines.h"
#include "transport/agent/protocol.h"
#include "transport/agent/token_file.h"
#include "transport/net/connect_within.h"
#include "transport/net/steady_clock.h"
#include "transport/net/endpoint_text.h"

namespace exsim::transport {

AgentSession::AgentSession(const Scenario& scenario, const RunOptions& options)
    : scenario_(scenario), options_(options) {}

AgentSession::~AgentSession() {
  // The watch looks at the channels on the reactor's thread: stopped there,
  // and waited for, before they go; let go there too (its timer is the reactor's).
  if (stalls_) {
    auto stopped = std::make_shared<std::promise<void>>();
    reactor_.post([stalls = std::move(stalls_), stopped] {
      stalls->stop();
      stopped->set_value();
    });
    stopped->get_future().wait_for(std::chrono::seconds(5));
  }
  for (auto& c : channels_) c.reset();
  stop_agents(agents_, said_bye_ ? deadlines::kExitAfterBye : std::chrono::milliseconds(0), deadlines::kKillGrace);
  remove_token_file();
}

void AgentSession::start() {
  const std::size_t hosts = scenario_.cluster.hosts.size();
  std::string token = options_.token;
  if (options_.hosts_file.empty()) {
    // A private file only this user can read, created anew (never through a
    // link), under a name no other run has.
    token_file_ = "/tmp/exsim-token-" + random_token().substr(0, 16);
    token = write_new_token_file(token_file_);
    for (std::size_t h = 0; h < hosts; ++h) {
      agents_.push_back(spawn_agent(options_.exsim_binary, token_file_,
                                    options_.host_cpus.empty() ? std::vector<int>{} : options_.host_cpus.at(h)));
    }
  } else {
    for (const auto& endpoint : read_hosts_file(options_.hosts_file)) {
      agents_.push_back({-1, endpoint.address, endpoint.port});
    }
    if (options_.spare_agents_ok && agents_.size() > hosts) agents_.resize(hosts);
    if (agents_.size() != hosts) {
      throw InputError({fmt::format("{} lists {} agents for {} scenario hosts", options_.hosts_file,
                                       agents_.size(), hosts)});
    }
  }
  // An agent serves the first coordinator to reach it. Shared agents are
  // taken one after another in the order of their addresses, each claimed
  // before the next is tried, so that two coordinators started together
  // cannot split them between them (and both fail): the one that claims the
  // first agent of the order gets them all, the other is refused there
  // holding none. Agents of our own take their setup all at once.
  std::vector<std::size_t> order(hosts);
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return std::tie(agents_[a].address, agents_[a].port) < std::tie(agents_[b].address, agents_[b].port);
  });
  channels_.resize(hosts);
  inbox_.resize(hosts);
  const bool shared = !options_.hosts_file.empty();
  // Every agent reached before any is claimed, side by side and within a few
  // seconds: an address that drops SYNs is named at once, and no agent is left
  // claimed by a run that cannot start.
  std::vector<asio::ip::tcp::endpoint> endpoints;
  for (std::size_t h = 0; h < hosts; ++h) {
    asio::error_code error;
    const auto address = asio::ip::make_address(agents_[h].address, error);
    if (error) throw std::runtime_error(fmt::format("{}: not an address: {}", agent_name(h), error.message()));
    endpoints.emplace_back(address, agents_[h].port);
  }
  std::optional<ConnectFailure> failure;
  auto sockets = connect_within(reactor_.context(), endpoints, kConnectTimeout, failure);
  // An agent that serves coordinators one after another (--keep-serving)
  // listens again a moment after its last one's shutdown: a refused
  // connection is tried again for that long.
  for (const auto until = Clock::now() + deadlines::kBetweenSessions;
       shared && failure && failure->code == ECONNREFUSED && Clock::now() < until;) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    sockets = connect_within(reactor_.context(), endpoints, kConnectTimeout, failure);
  }
  if (failure) {
    throw std::runtime_error(fmt::format("{}: cannot connect: {}{}", agent_name(failure->index), failure->reason,
                                         shared ? " (is the agent running, at that address, and reachable?)" : ""));
  }
  // The handshakes, all at once: an agent takes a coordinator only once it has
  // proved itself and its first message (the setup) arrives, and the setups go
  // one agent at a time.
  for (std::size_t h = 0; h < hosts; ++h) {
    channels_[h] = std::make_unique<ControlChannel>(reactor_, std::move(sockets[h]), Handshake::Side::kClient, token,
                                                    doorbell_);
    channels_[h]->start();
  }
  // What an agent runs arrives whole: it reads no file a scenario names.
  const std::string scenario_text = with_costs_inlined(options_.scenario_text, options_.scenario_file);
  stalls_ = StallWatch::start(reactor_.context(), [this] {
    std::vector<StallWatch::Waiting> waiting;
    const std::int64_t now = steady_now_ns();
    for (std::size_t h = 0; h < channels_.size(); ++h) {
      if (const std::int64_t ns = channels_[h]->connection()->unacknowledged_ns(now); ns > 0) {
        waiting.push_back({ns, fmt::format("the control connection to {}", agent_name(h))});
      }
    }
    return waiting;
  });
  for (const std::size_t h : order) {
    channels_[h]->send(json{{"op", "setup"},
                            {"scenario", scenario_text},
                            {"file", options_.scenario_file},
                            {"overrides", options_.overrides},
                            {"host", h},
                            {"delay_line", options_.delay_line},
                            {"nic_cap", options_.nic_cap}}
                           .dump());
    if (shared) expect(h, "claimed", Clock::now() + deadlines::kClaim);
  }
  json peers = json::array();
  for (std::size_t h = 0; h < hosts; ++h) {
    if (!shared) expect(h, "claimed", Clock::now() + deadlines::kClaim);
    ready_.push_back(expect(h, "ready", Clock::now() + deadlines::kReady));
    peers.push_back({{"address", agents_[h].address}, {"port", ready_.back().at("data_port")}});
  }
  // Every agent has read the token: its file goes now, so that a run ended
  // by a signal (no destructor) leaves none behind.
  remove_token_file();
  for (auto& c : channels_) c->send(json{{"op", "connect"}, {"peers", peers}}.dump());
  for (std::size_t h = 0; h < hosts; ++h) expect(h, "connected", Clock::now() + deadlines::kConnected);
  cores_awake_.assign(hosts, "");
  if (options_.hold_cores_awake) hold_cores_awake(true);
}

void AgentSession::hold_cores_awake(bool hold) {
  broadcast(json{{"op", "cores_awake"}, {"hold", hold}});
  for (std::size_t h = 0; h < channels_.size(); ++h) {
    const json reply = expect(h, "cores_awake", Clock::now() + deadlines::kBetweenRuns);
    cores_awake_.at(h) = !hold                         ? "free to sleep"
                         : reply.at("held").get<bool>() ? "held"
                                                        : cores_refused_state(reply.value("why_not", std::string("?")));
  }
}

void AgentSession::remove_token_file() {
  if (!token_file_.empty()) std::remove(token_file_.c_str());
  token_file_.clear();
}

std::string AgentSession::agent_name(std::size_t h) const {
  return agents_[h].pid > 0 ? fmt::format("agent {} (pid {})", scenario_.cluster.hosts[h].name, agents_[h].pid)
                            : fmt::format("agent {} at {}:{}", scenario_.cluster.hosts[h].name, agents_[h].address,
                                          agents_[h].port);
}

std::optional<AgentSession::json> AgentSession::next_unseen(std::size_t h) {
  auto done = std::find_if(inbox_[h].begin(), inbox_[h].end(), [](const json& m) { return m.at("op") == "done"; });
  if (done != inbox_[h].end()) {
    json m = std::move(*done);
    inbox_[h].erase(done);
    return m;
  }
  auto text = channels_[h]->receive(Clock::now());
  if (!text) return std::nullopt;
  return json::parse(*text);
}

AgentSession::json AgentSession::expect(std::size_t h, const std::string& op, Clock::time_point deadline) {
  if (inbox_.size() < channels_.size()) inbox_.resize(channels_.size());
  for (auto it = inbox_[h].begin(); it != inbox_[h].end(); ++it) {
    if (it->at("op") == op) {
      json m = *it;
      inbox_[h].erase(it);
      return m;
    }
  }
  while (true) {
    auto text = channels_[h]->receive(deadline);
    if (!text) {
      const std::string why = channels_[h]->closed() ? channels_[h]->error() : "no answer in time";
      std::string hint;
      if (channels_[h]->refused()) {
        hint = ": the agent's token is not the one in --token-file";
      } else if ((op == "claimed" || op == "ready") && channels_[h]->closed()) {
        // An agent closes a second coordinator's connection.
        hint = ": the agent closed the connection, as it does while it serves another coordinator";
      }
      throw std::runtime_error(fmt::format("{}: {} (waiting for '{}'){}", agent_name(h), why, op, hint));
    }
    json m = json::parse(*text);
    if (m.at("op") == "error") throw std::runtime_error(fmt::format("{}: {}", agent_name(h), m.at("error").get<std::string>()));
    if (m.at("op") == op) return m;
    inbox_[h].push_back(std::move(m));
  }
}

std::string AgentSession::dead_agents() {
  std::string dead;
  const auto until = Clock::now() + deadlines::kReportDeadAgents;
  do {
    dead.clear();
    for (std::size_t h = 0; h < channels_.size(); ++h) {
      if (channels_[h]->closed()) dead += fmt::format("; {} is lost: {}", agent_name(h), channels_[h]->error());
    }
    if (!dead.empty()) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  } while (Clock::now() < until);
  return dead;
}

void AgentSession::broadcast(const json& message) {
  for (auto& c : channels_) c->send(message.dump());
}

std::optional<StallWatch::Stall> AgentSession::longest_stall(Clock::time_point from, Clock::time_point to) const {
  if (!stalls_) return std::nullopt;
  // steady_now_ns is the steady clock's count (net/steady_clock.h).
  return stalls_->longest(std::chrono::duration_cast<std::chrono::nanoseconds>(from.time_since_epoch()).count(),
                          std::chrono::duration_cast<std::chrono::nanoseconds>(to.time_since_epoch()).count());
}

std::vector<AgentSession::json> AgentSession::shut_down() {
  std::vector<json> byes;
  for (std::size_t i = 0; i < channels_.size(); ++i) {
    channels_[i]->send(json{{"op", "shutdown"}}.dump());
    byes.push_back(expect(i, "bye", Clock::now() + deadlines::kBetweenRuns));
  }
  said_bye_ = true;
  return byes;
}

}  // namespace exsim::transport
