#include "transport/agent/coordinator.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <deque>
#include <map>
#include <memory>
#include <numeric>
#include <optional>
#include <stdexcept>
#include <thread>
#include <tuple>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "models/base/error.h"
#include "models/rules/sender_memory.h"
#include "transport/agent/agent_process.h"
#include "transport/agent/control_channel.h"
#include "transport/agent/deadlines.h"
#include "transport/agent/measurable.h"
#include "transport/agent/measured_exchange.h"
#include "transport/agent/protocol.h"
#include "transport/net/endpoint_text.h"

namespace exsim::transport {
namespace {

using json = nlohmann::json;
using Clock = std::chrono::steady_clock;

class Coordinator {
 public:
  Coordinator(const Scenario& scenario, const RunOptions& options) : scenario_(scenario), options_(options) {}

  ~Coordinator() {
    for (auto& c : channels_) c.reset();
    // Agents that said "bye" end by themselves; one that did not (a failed
    // run) is signalled at once.
    stop_agents(agents_, said_bye_ ? deadlines::kExitAfterBye : std::chrono::milliseconds(0), deadlines::kKillGrace);
    remove_token_file();
  }

  std::vector<RunResult> run() {
    start_agents();
    std::vector<RunResult> results;
    for (const auto& policy : scenario_.policies) {
      if (!options_.policies.empty() &&
          std::find(options_.policies.begin(), options_.policies.end(), policy.name) == options_.policies.end()) {
        continue;
      }
      results.push_back(run_policy(policy, results.size()));
    }
    const std::size_t n = channels_.size();
    // calls[a][b]: one-way delay of a's calls to b, measured by b; responses[a][b]:
    // of b's responses to them, measured by a.
    std::vector<std::vector<double>> calls(n, std::vector<double>(n, -1)), responses(n, std::vector<double>(n, -1)),
        achieved(n, std::vector<double>(n, -1));
    for (std::size_t i = 0; i < n; ++i) {
      channels_[i]->send(json{{"op", "shutdown"}}.dump());
      const json bye = expect(i, "bye", Clock::now() + deadlines::kBetweenRuns);
      said_bye_ = i + 1 == n;
      for (auto& r : results) {
        r.hosts[i].rss_peak_bytes = bye.at("rss_peak_bytes").get<std::int64_t>();
        r.hosts[i].process_cpu_s = bye.value("process_cpu_s", -1.0);
      }
      const auto delays = bye.at("achieved_one_way_ms").get<std::vector<double>>();
      for (std::size_t from = 0; from < delays.size() && from < n; ++from) calls[from][i] = delays[from];
      const auto back = bye.at("achieved_response_ms").get<std::vector<double>>();
      for (std::size_t to = 0; to < back.size() && to < n; ++to) responses[i][to] = back[to];
    }
    for (std::size_t a = 0; a < n; ++a) {
      for (std::size_t b = 0; b < n; ++b) {
        if (calls[a][b] >= 0 && responses[a][b] >= 0) achieved[a][b] = calls[a][b] + responses[a][b];
      }
    }
    for (auto& r : results) r.rtt_achieved_ms = achieved;
    return results;
  }

 private:
  void start_agents() {
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

  void remove_token_file() {
    if (!token_file_.empty()) std::remove(token_file_.c_str());
    token_file_.clear();
  }

  std::string agent_name(std::size_t h) const {
    return agents_[h].pid > 0 ? fmt::format("agent {} (pid {})", scenario_.cluster.hosts[h].name, agents_[h].pid)
                              : fmt::format("agent {} at {}:{}", scenario_.cluster.hosts[h].name, agents_[h].address,
                                            agents_[h].port);
  }

  // The next message of `h` not yet looked at, without waiting: a "done" that
  // expect() put aside first, then the channel's next.
  std::optional<json> next_unseen(std::size_t h) {
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

  // Waits for a message `op` from agent h; fails the run on an error or death.
  json expect(std::size_t h, const std::string& op, Clock::time_point deadline) {
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

  // A failure seen by one agent is often another agent's death: name the dead,
  // giving their control connections a moment to report the close.
  std::string dead_agents() {
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

  void broadcast(const json& message) {
    for (auto& c : channels_) c->send(message.dump());
  }

  RunResult run_policy(const Policy& policy, std::size_t index) {
    RunResult result;
    describe_run(result, scenario_, policy, "measured");
    json reset{{"op", "reset_memory"}};
    if (options_.trace) {
      // About 100 bytes of JSON a span: a host's share stays well inside a control message.
      constexpr std::size_t kMaxPerHost = 100'000;
      reset["trace"] = std::min(kMaxPerHost, std::max<std::size_t>(100, options_.trace_events / channels_.size()));
    }
    broadcast(reset);
    for (std::size_t h = 0; h < channels_.size(); ++h) expect(h, "reset", Clock::now() + deadlines::kBetweenRuns);
    CallHistograms calls;
    std::vector<Bytes> sender_peak(channels_.size(), 0), receiver_peak(channels_.size(), 0);
    for (std::size_t q = 0; q < scenario_.queries.size(); ++q) {
      const Query& query = scenario_.queries[q];
      QueryResult qr{query.name, query.repeat, 0};
      for (int rep = 0; rep < query.repeat; ++rep) {
        qr.wall_s += run_query(policy, q, rep, result, calls, sender_peak, receiver_peak);
      }
      result.queries.push_back(qr);
      result.wall_s += qr.wall_s;
    }
    broadcast(json{{"op", "cpu"}});
    for (std::size_t h = 0; h < channels_.size(); ++h) {
      const json cpu = expect(h, "cpu", Clock::now() + deadlines::kBetweenRuns);
      result.cpu_s.rpc += cpu.at("rpc_ns").get<double>() * 1e-9;
      if (options_.trace && cpu.contains("trace")) {
        options_.trace->absorb(cpu.at("trace").get<std::string>(), static_cast<int>(index * channels_.size() + h),
                               policy.name + ": " + scenario_.cluster.hosts[h].name);
      }
    }
    result.rpc_network = call_times_of(calls.network_ns);
    result.rpc_receiver = call_times_of(calls.receiver_ns);
    result.sender_wake = call_times_of(calls.wake_ns);
    const auto statics = static_sender_memory(scenario_, policy);
    for (std::size_t h = 0; h < channels_.size(); ++h) {
      const StaticSenderBytes& s = statics[h];
      HostResult host{scenario_.cluster.hosts[h].name, sender_peak[h], s.expected, s.worst, receiver_peak[h]};
      host.sender_expected_held_bytes = s.expected_held;
      host.sender_worst_held_bytes = s.worst_held;
      result.hosts.push_back(host);
    }
    return result;
  }

  // Runs one repetition of a query and returns its wall-clock: the time during
  // which at least one of its exchanges ran. Preparing an exchange (threads,
  // buffers, the generator's calibration) is setup, as in the model, and is
  // left out when nothing else runs meanwhile.
  double run_query(const Policy& policy, std::size_t q, int rep, RunResult& result, CallHistograms& calls,
                   std::vector<Bytes>& sender_peak, std::vector<Bytes>& receiver_peak) {
    double wall_s = 0;
    Clock::time_point busy_since{};
    const Query& query = scenario_.queries[q];
    const std::size_t n = query.exchanges.size();
    std::vector<int> state(n, 0);  // 0 waiting, 1 running, 2 done
    std::map<std::uint32_t, std::size_t> running;  // run id -> exchange
    std::map<std::uint32_t, Clock::time_point> started;
    std::map<std::uint32_t, ExchangeTotals> totals;
    std::map<std::uint32_t, std::size_t> reported;
    std::size_t done = 0, finished = 0;  // `finished`: of `running`, those over
    while (done < n) {
      for (std::size_t x = 0; x < n; ++x) {
        if (state[x] != 0) continue;
        const auto& after = query.exchanges[x].after;
        if (!std::all_of(after.begin(), after.end(), [&](int d) { return state[static_cast<std::size_t>(d)] == 2; })) continue;
        const std::uint32_t id = next_run_++;
        broadcast(json{{"op", "prepare"}, {"policy", policy.name}, {"query", q}, {"repetition", rep}, {"exchange", x},
                       {"run", id}, {"timeout_s", options_.timeout.count()}});
        for (std::size_t h = 0; h < channels_.size(); ++h) expect(h, "prepared", Clock::now() + deadlines::kPrepared);
        // Stamped before the start goes out: an agent's senders begin as soon as
        // it arrives, and on a busy machine they can take the cores from this
        // thread before the broadcast returns (a tiny exchange then measured a
        // wall-clock shorter than its senders' lives).
        started[id] = Clock::now();
        broadcast(json{{"op", "start"}, {"run", id}});
        state[x] = 1;
        running[id] = x;
        if (running.size() - finished == 1) busy_since = started[id];
      }
      // Wait for the next "done" from any agent: a sweep that does not wait,
      // then a wait on the doorbell every channel rings, so that a done is seen
      // as soon as it arrives and nothing wakes this thread meanwhile (on one
      // machine its wake-ups would take CPU from the exchange it measures).
      const auto deadline = Clock::now() + options_.timeout + deadlines::kRunReport;
      bool progressed = false;
      while (!progressed) {
        const std::uint64_t seen = doorbell_->rings();
        bool any = false;
        for (std::size_t h = 0; h < channels_.size() && !progressed; ++h) {
          auto m = next_unseen(h);
          if (!m) {
            if (channels_[h]->closed()) {  // the agent died or dropped its connection
              const std::string error = fmt::format("{} died: its control connection {}", agent_name(h),
                                                    channels_[h]->error());
              broadcast(json{{"op", "fail"}, {"error", error}});
              throw std::runtime_error(error);
            }
            continue;
          }
          if (m->at("op") == "error") throw std::runtime_error(fmt::format("{}: {}", agent_name(h), m->at("error").get<std::string>()));
          if (m->at("op") != "done") {
            inbox_[h].push_back(*m);  // for a later expect(); not progress
            continue;
          }
          any = true;
          const auto id = m->at("run").get<std::uint32_t>();
          if (!m->at("ok").get<bool>()) {
            const std::string error = m->at("error").get<std::string>();
            broadcast(json{{"op", "fail"}, {"error", error}});
            throw std::runtime_error(fmt::format("exchange {} of {} failed: {}{}", query.exchanges[running[id]].id,
                                                 query.name, error, dead_agents()));
          }
          totals[id].add(m->at("stats"));
          sender_peak[h] = std::max<Bytes>(sender_peak[h], m->at("sender_peak_bytes").get<std::int64_t>());
          receiver_peak[h] = std::max<Bytes>(receiver_peak[h], m->at("receiver_peak_bytes").get<std::int64_t>());
          if (++reported[id] < channels_.size()) continue;
          // Every agent has reported: the exchange is over, and every row must have arrived.
          const std::size_t x = running[id];
          const Exchange& e = query.exchanges[x];
          const std::int64_t expected = e.rows * (e.kind == PartitionKind::kBroadcast ? e.receivers.instances() : 1);
          if (totals[id].rows != expected) {
            broadcast(json{{"op", "release"}, {"run", id}});
            throw std::runtime_error(fmt::format("exchange {} of {} delivered {} rows, not {}: rows were lost",
                                                 e.id, query.name, totals[id].rows, expected));
          }
          const auto now = Clock::now();
          state[x] = 2;
          ++done;
          if (running.size() - ++finished == 0) wall_s += std::chrono::duration<double>(now - busy_since).count();
          progressed = true;
          broadcast(json{{"op", "release"}, {"run", id}});
          record_exchange(scenario_, options_, result, calls, query, x, rep, totals[id],
                          std::chrono::duration<double>(now - started[id]).count());
        }
        if (!progressed && !any && !doorbell_->wait_past(seen, deadline)) {
          throw std::runtime_error("no agent reported before the deadline");
        }
      }
    }
    return wall_s;
  }

  const Scenario& scenario_;
  const RunOptions& options_;
  Reactor reactor_;
  std::vector<AgentProcess> agents_;
  std::vector<std::unique_ptr<ControlChannel>> channels_;
  std::vector<std::deque<json>> inbox_;
  std::shared_ptr<Doorbell> doorbell_ = std::make_shared<Doorbell>();
  std::string token_file_;
  std::uint32_t next_run_ = 1;
  bool said_bye_ = false;  // every agent answered "shutdown"
};

}  // namespace

std::vector<RunResult> run_on_agents(const Scenario& scenario, const RunOptions& options) {
  std::vector<Policy> asked;
  for (const Policy& p : scenario.policies) {
    if (options.policies.empty() || std::find(options.policies.begin(), options.policies.end(), p.name) != options.policies.end()) {
      asked.push_back(p);
    }
  }
  require_measurable(asked, options.scenario_file);
  Coordinator coordinator(scenario, options);
  return coordinator.run();
}

}  // namespace exsim::transport
