#include "transport/agent/coordinator.h"

#include <algorithm>
#include <map>
#include <optional>
#include <stdexcept>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "models/base/error.h"
#include "transport/agent/agent_session.h"
#include "transport/agent/deadlines.h"
#include "transport/agent/measurable.h"
#include "transport/agent/measured_exchange.h"
#include "transport/agent/protocol.h"

namespace exsim::transport {
namespace {

using json = nlohmann::json;
using Clock = std::chrono::steady_clock;

// Drives the queries on a session's agents (agent_session.h), started and
// set up with the scenario: each policy in turn, its queries one after
// another, a query's exchanges together unless `after` orders them, each
// prepared on every agent before any starts; adds up what the agents measured
// into the results.
class Coordinator {
 public:
  Coordinator(const Scenario& scenario, const RunOptions& options, AgentSession& session)
      : scenario_(scenario), options_(options), session_(session) {}

  std::vector<RunResult> run() {
    std::vector<RunResult> results;
    for (const auto& policy : scenario_.policies) {
      if (!options_.policies.empty() &&
          std::find(options_.policies.begin(), options_.policies.end(), policy.name) == options_.policies.end()) {
        continue;
      }
      results.push_back(run_policy(policy, results.size()));
    }
    return results;
  }

 private:
  // Each agent's speed probe, when asked for (RunOptions::probe_speed); else none.
  std::vector<double> probe_speeds() {
    std::vector<double> probes;
    if (!options_.probe_speed) return probes;
    session_.broadcast(json{{"op", "speed"}});
    for (std::size_t h = 0; h < session_.size(); ++h) {
      probes.push_back(session_.expect(h, "speed", Clock::now() + deadlines::kBetweenRuns).at("probe_us").get<double>());
    }
    return probes;
  }

  RunResult run_policy(const Policy& policy, std::size_t index) {
    RunResult result;
    describe_run(result, scenario_, policy, "measured");
    json reset{{"op", "reset_memory"}};
    if (options_.trace) {
      // About 100 bytes of JSON a span: a host's share stays well inside a control message.
      constexpr std::size_t kMaxPerHost = 100'000;
      reset["trace"] = std::min(kMaxPerHost, std::max<std::size_t>(100, options_.trace_events / session_.size()));
    }
    const std::vector<double> speed_before = probe_speeds();
    session_.broadcast(reset);
    for (std::size_t h = 0; h < session_.size(); ++h) session_.expect(h, "reset", Clock::now() + deadlines::kBetweenRuns);
    CallHistograms calls;
    std::vector<Bytes> sender_peak(session_.size(), 0), receiver_peak(session_.size(), 0);
    for (std::size_t q = 0; q < scenario_.queries.size(); ++q) {
      const Query& query = scenario_.queries[q];
      QueryResult qr{query.name, query.repeat, 0};
      for (int rep = 0; rep < query.repeat; ++rep) {
        qr.wall_s += run_query(policy, q, rep, result, calls, sender_peak, receiver_peak);
      }
      result.queries.push_back(qr);
      result.wall_s += qr.wall_s;
    }
    session_.broadcast(json{{"op", "cpu"}});
    for (std::size_t h = 0; h < session_.size(); ++h) {
      const json cpu = session_.expect(h, "cpu", Clock::now() + deadlines::kBetweenRuns);
      result.cpu_s.rpc += cpu.at("rpc_ns").get<double>() * 1e-9;
      if (options_.trace && cpu.contains("trace")) {
        options_.trace->absorb(cpu.at("trace").get<std::string>(), static_cast<int>(index * session_.size() + h),
                               policy.name + ": " + scenario_.cluster.hosts[h].name);
      }
    }
    const std::vector<double> speed_after = probe_speeds();
    result.rpc_network = call_times_of(calls.network_ns);
    result.rpc_receiver = call_times_of(calls.receiver_ns);
    result.sender_wake = call_times_of(calls.wake_ns);
    describe_hosts(result, scenario_, policy, sender_peak, receiver_peak);
    for (std::size_t h = 0; h < session_.size() && h < result.hosts.size(); ++h) {
      result.hosts[h].cores_awake = session_.cores_awake(h);
    }
    for (std::size_t h = 0; h < speed_before.size() && h < result.hosts.size(); ++h) {
      result.hosts[h].speed_probe_before_us = speed_before[h];
      result.hosts[h].speed_probe_after_us = speed_after.at(h);
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
        session_.broadcast(json{{"op", "prepare"}, {"policy", policy.name}, {"query", q}, {"repetition", rep}, {"exchange", x},
                       {"run", id}, {"timeout_s", options_.timeout.count()}});
        for (std::size_t h = 0; h < session_.size(); ++h) session_.expect(h, "prepared", Clock::now() + deadlines::kPrepared);
        // Stamped before the start goes out: an agent's senders begin as soon as
        // it arrives, and on a busy machine they can take the cores from this
        // thread before the broadcast returns (a tiny exchange then measured a
        // wall-clock shorter than its senders' lives).
        started[id] = Clock::now();
        session_.broadcast(json{{"op", "start"}, {"run", id}});
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
        const std::uint64_t seen = session_.doorbell().rings();
        bool any = false;
        for (std::size_t h = 0; h < session_.size() && !progressed; ++h) {
          auto m = session_.next_unseen(h);
          if (!m) {
            if (session_.closed(h)) {  // the agent died or dropped its connection
              const std::string error = fmt::format("{} is lost, its control connection {}",
                                                    session_.agent_name(h), session_.close_reason(h));
              session_.broadcast(json{{"op", "fail"}, {"error", error}});
              throw std::runtime_error(error);
            }
            continue;
          }
          if (m->at("op") == "error") throw std::runtime_error(fmt::format("{}: {}", session_.agent_name(h), m->at("error").get<std::string>()));
          if (m->at("op") != "done") {
            session_.put_aside(h, *m);  // for a later expect(); not progress
            continue;
          }
          any = true;
          const auto id = m->at("run").get<std::uint32_t>();
          if (!m->at("ok").get<bool>()) {
            const std::string error = m->at("error").get<std::string>();
            session_.broadcast(json{{"op", "fail"}, {"error", error}});
            throw std::runtime_error(fmt::format("exchange {} of {} failed: {}{}", query.exchanges[running[id]].id,
                                                 query.name, error, session_.dead_agents()));
          }
          totals[id].add(m->at("stats"));
          if (m->contains("stall")) {
            totals[id].add_stall(m->at("stall").at("ns").get<std::int64_t>(),
                                 fmt::format("host {}: {}", scenario_.cluster.hosts[h].name,
                                             m->at("stall").at("what").get<std::string>()));
          }
          sender_peak[h] = std::max<Bytes>(sender_peak[h], m->at("sender_peak_bytes").get<std::int64_t>());
          receiver_peak[h] = std::max<Bytes>(receiver_peak[h], m->at("receiver_peak_bytes").get<std::int64_t>());
          if (++reported[id] < session_.size()) continue;
          // Every agent has reported: the exchange is over, and every row must have arrived.
          const std::size_t x = running[id];
          const Exchange& e = query.exchanges[x];
          const std::int64_t expected = e.rows * (e.kind == PartitionKind::kBroadcast ? e.receivers.instances() : 1);
          if (totals[id].rows != expected) {
            session_.broadcast(json{{"op", "release"}, {"run", id}});
            throw std::runtime_error(fmt::format("exchange {} of {} delivered {} rows, not {}: rows were lost",
                                                 e.id, query.name, totals[id].rows, expected));
          }
          const auto now = Clock::now();
          state[x] = 2;
          ++done;
          if (running.size() - ++finished == 0) wall_s += std::chrono::duration<double>(now - busy_since).count();
          progressed = true;
          session_.broadcast(json{{"op", "release"}, {"run", id}});
          if (const auto stall = session_.longest_stall(started[id], now)) {
            totals[id].add_stall(stall->length_ns, "the coordinator: " + stall->what);
          }
          record_exchange(scenario_, options_, result, calls, query, x, rep, totals[id],
                          std::chrono::duration<double>(now - started[id]).count());
        }
        if (!progressed && !any && !session_.doorbell().wait_past(seen, deadline)) {
          throw std::runtime_error("no agent reported before the deadline");
        }
      }
    }
    return wall_s;
  }

  const Scenario& scenario_;
  const RunOptions& options_;
  AgentSession& session_;
  std::uint32_t next_run_ = 1;
};

// What only the agents' goodbyes tell, added to every result: each host's
// peak RSS and process CPU, and the delays the delay lines achieved.
void add_goodbyes(const std::vector<nlohmann::json>& byes, std::vector<RunResult>& results) {
  const std::size_t n = byes.size();
  // calls[a][b]: one-way delay of a's calls to b, measured by b; responses[a][b]:
  // of b's responses to them, measured by a.
  std::vector<std::vector<double>> calls(n, std::vector<double>(n, -1)), responses(n, std::vector<double>(n, -1)),
      achieved(n, std::vector<double>(n, -1));
  for (std::size_t i = 0; i < n; ++i) {
    const json& bye = byes[i];
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
}

void require_measurable_policies(const Scenario& scenario, const RunOptions& options) {
  std::vector<Policy> asked;
  for (const Policy& p : scenario.policies) {
    if (options.policies.empty() || std::find(options.policies.begin(), options.policies.end(), p.name) != options.policies.end()) {
      asked.push_back(p);
    }
  }
  require_measurable(asked, options.scenario_file);
}

}  // namespace

std::vector<RunResult> run_on_agents(const Scenario& scenario, const RunOptions& options) {
  require_measurable_policies(scenario, options);
  AgentSession session(scenario, options);
  session.start();
  std::vector<RunResult> results = Coordinator(scenario, options, session).run();
  add_goodbyes(session.shut_down(), results);
  return results;
}

std::vector<RunResult> run_on_session(AgentSession& session, const Scenario& scenario, const RunOptions& options) {
  require_measurable_policies(scenario, options);
  return Coordinator(scenario, options, session).run();
}

}  // namespace exsim::transport
