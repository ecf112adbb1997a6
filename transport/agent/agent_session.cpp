#include "transport/agent/agent_session.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <numeric>
#include <stdexcept>
#include <thread>
#include <tuple>

#include <fmt/format.h>

#include "models/base/error.h"
#include "transport/agent/deadlines.h"
#include "transport/agent/protocol.h"
#include "transport/net/endpoint_text.h"

namespace exsim::transport {

AgentSession::AgentSession(const Scenario& scenario, const RunOptions& options)
    : scenario_(scenario), options_(options) {}

AgentSession::~AgentSession() {
  for (auto& c : channels_) c.reset();
  stop_agents(agents_, said_bye_ ? deadlines::kExitAfterBye : std::chrono::milliseconds(0), deadlines::kKillGrace);
  remove_token_file();
}

void AgentSession::start() {
  const std::size_t hosts = scenario_.cluster.hosts.size();
  std::string token = options_.token;
  if (options_.hosts_file.empty()) {
    token = random_token();
    // A private file only this user can read, created anew (never through a link).
    char path[] = "/tmp/exsim-token-XXXXXX";
    const int fd = mkstemp(path);
    if (fd < 0) throw std::runtime_error(fmt::format("cannot create a token file: {}", std::strerror(errno)));
    token_file_ = path;
    const std::string line = token + "\n";
    const bool written = write(fd, line.data(), line.size()) == static_cast<ssize_t>(line.size());
    close(fd);
    if (!written) throw std::runtime_error(fmt::format("cannot write the token file {}", token_file_));
    for (std::size_t h = 0; h < hosts; ++h) {
      agents_.push_back(spawn_agent(options_.exsim_binary, token_file_,
                                    options_.host_cpus.empty() ? std::vector<int>{} : options_.host_cpus.at(h)));
    }
  } else {
    for (const auto& endpoint : read_hosts_file(options_.hosts_file)) {
      agents_.push_back({-1, endpoint.address, endpoint.port});
    }
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
  for (const std::size_t h : order) {
    asio::ip::tcp::socket socket(reactor_.context());
    asio::error_code error;
    const auto address = asio::ip::make_address(agents_[h].address, error);
    if (!error) socket.connect({address, agents_[h].port}, error);
    if (error) {
      throw std::runtime_error(fmt::format("{}: cannot connect: {}{}", agent_name(h), error.message(),
                                           shared ? " (an agent serves one coordinator, then exits: is it running, "
                                                    "and not taken by another run?)"
                                                  : ""));
    }
    channels_[h] = std::make_unique<ControlChannel>(reactor_, std::move(socket), std::string(), doorbell_);
    channels_[h]->start();
    channels_[h]->hello(token);
    channels_[h]->send(json{{"op", "setup"},
                            {"scenario", options_.scenario_text},
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
    const json ready = expect(h, "ready", Clock::now() + deadlines::kReady);
    peers.push_back({{"address", agents_[h].address}, {"port", ready.at("data_port")}});
  }
  // Every agent has read the token: its file goes now, so that a run ended
  // by a signal (no destructor) leaves none behind.
  remove_token_file();
  for (auto& c : channels_) c->send(json{{"op", "connect"}, {"peers", peers}}.dump());
  for (std::size_t h = 0; h < hosts; ++h) expect(h, "connected", Clock::now() + deadlines::kConnected);
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
      // An agent refuses a wrong token, or a second coordinator, by closing.
      const bool refused = (op == "claimed" || op == "ready") && channels_[h]->closed();
      throw std::runtime_error(fmt::format("{}: {} (waiting for '{}'){}", agent_name(h),
                                           channels_[h]->closed() ? channels_[h]->error() : "no answer in time", op,
                                           refused ? ": the agent closed the connection, as it does for a wrong "
                                                     "token or while it serves another coordinator"
                                                   : ""));
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
      if (channels_[h]->closed()) dead += fmt::format("; {} died", agent_name(h));
    }
    if (!dead.empty()) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  } while (Clock::now() < until);
  return dead;
}

void AgentSession::broadcast(const json& message) {
  for (auto& c : channels_) c->send(message.dump());
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
