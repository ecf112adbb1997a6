#include "transport/agent/agent.h"

#include "transport/exchange/trace_recorder.h"

#include <sys/resource.h>

#include <array>
#include <cstdio>
#include <map>
#include <tuple>
#include <memory>
#include <optional>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "models/base/error.h"
#include "models/rules/partitioning.h"
#include "models/scenario/scenario_loader.h"
#include "transport/agent/cluster_probes.h"
#include "transport/agent/control_channel.h"
#include "transport/agent/control_listener.h"
#include "transport/agent/deadlines.h"
#include "transport/agent/protocol.h"
#include "transport/data/row_generator.h"
#include "transport/exchange/exchange_part.h"
#include "transport/net/steady_clock.h"
#include "transport/rpc/host.h"
#include "transport/testbed/awake_cores.h"
#include "transport/testbed/speed_probe.h"

namespace exsim::transport {
namespace {

using json = nlohmann::json;

std::int64_t rss_peak_bytes() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<std::int64_t>(usage.ru_maxrss) * 1024;
}

// The process's CPU seconds so far, start-up included.
double process_cpu_s() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
         static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) * 1e-6;
}

// One exchange run this agent takes part in.
struct ActiveRun {
  std::unique_ptr<RunStats> stats;
  std::unique_ptr<ExchangePart> part;
  std::thread waiter;
};

class Agent {
 public:
  explicit Agent(const AgentOptions& options) : options_(options) {}

  int serve() {
    ControlListener listener(reactor_, {asio::ip::make_address(options_.listen_address), options_.listen_port},
                             options_.token);
    const auto bound = listener.endpoint();
    std::printf("listening %s:%u\n", bound.address().to_string().c_str(), bound.port());
    std::fflush(stdout);
    // Serve the first connection that proves it holds the token and asks; the
    // others (a port scan, a stray client, a wrong token) are refused.
    auto claim = listener.wait(std::chrono::steady_clock::now() + options_.idle_timeout);
    if (!claim) {
      std::fprintf(stderr, "exsim agent: no coordinator within the idle timeout\n");
      return 1;
    }
    channel_ = std::move(claim->channel);
    std::optional<std::string> first = std::move(claim->first_message);
    // Said at once, before the setup's work: a coordinator takes its agents one
    // after another in one order (agent_session.cpp), and moves to the next only
    // when this one is its own.
    channel_->send(json{{"op", "claimed"}}.dump());
    int code = 0;
    while (true) {
      auto message = first ? std::exchange(first, std::nullopt)
                           : channel_->receive(std::chrono::steady_clock::now() + options_.idle_timeout);
      // The coordinator is silent while an exchange runs, however long: its
      // own deadline ends a run, and a coordinator that dies closes the channel.
      if (!message && !channel_->closed() && running()) continue;
      if (!message) {
        std::fprintf(stderr, "exsim agent: coordinator gone: %s\n",
                     channel_->closed() ? channel_->error().c_str() : "no message within the idle timeout");
        code = 1;
        break;
      }
      json reply;
      try {
        const json request = json::parse(*message);
        const std::string op = request.at("op").get<std::string>();
        if (op == "shutdown") {
          const Host::AchievedDelays delays = host_ ? host_->achieved_delays_ms() : Host::AchievedDelays{};
          channel_->send(json{{"op", "bye"},
                              {"rss_peak_bytes", rss_peak_bytes()},
                              {"process_cpu_s", process_cpu_s()},
                              {"achieved_one_way_ms", delays.calls_from},
                              {"achieved_response_ms", delays.responses_from}}
                             .dump());
          break;
        }
        reply = handle(op, request);
      } catch (const std::exception& e) {
        reply = {{"op", "error"}, {"error", e.what()}};
      }
      if (!reply.is_null()) channel_->send(reply.dump());
    }
    // Teardown: no failure reports any more, every run cancelled and its waiter
    // joined, the host stopped (no callback can reach a run), then the runs freed.
    if (host_) host_->set_failure_handler({});
    std::map<std::uint32_t, ActiveRun> runs;
    {
      std::lock_guard lock(runs_mutex_);
      runs.swap(runs_);
    }
    for (auto& [id, run] : runs) {
      if (run.part) run.part->cancel("agent shutting down");
    }
    for (auto& [id, run] : runs) {
      if (run.waiter.joinable()) run.waiter.join();
    }
    if (host_) host_->stop();
    runs.clear();
    awake_.reset();  // the cores may sleep again: this coordinator is done
    // The last reply ("bye") leaves before the connection closes.
    channel_->drain(std::chrono::steady_clock::now() + deadlines::kLastReplyLeaves);
    channel_->close();
    return code;
  }

 private:
  // The coordinator's requests but "shutdown" (the loop's own), by op; each
  // returns the reply, or null when there is none now.
  json handle(const std::string& op, const json& request) {
    using Handler = json (Agent::*)(const json&);
    static constexpr std::array<std::pair<std::string_view, Handler>, 12> kHandlers{{
        {"setup", &Agent::on_setup},
        {"connect", &Agent::on_connect},
        {"prepare", &Agent::on_prepare},
        {"start", &Agent::on_start},
        {"release", &Agent::on_release},
        {"reset_memory", &Agent::on_reset_memory},
        {"cpu", &Agent::on_cpu},
        {"fail", &Agent::on_fail},
        {"probe", &Agent::on_probe},
        {"calibrate_cpu", &Agent::on_calibrate_cpu},
        {"speed", &Agent::on_speed},
        {"cores_awake", &Agent::on_cores_awake},
    }};
    for (const auto& [name, handler] : kHandlers) {
      if (name == op) return (this->*handler)(request);
    }
    std::string known;
    for (const auto& [name, handler] : kHandlers) known += (known.empty() ? "" : ", ") + std::string(name);
    throw std::runtime_error("unknown op " + op + " (known: shutdown, " + known + ")");
  }

  json on_setup(const json& request) {
    scenario_ = std::make_unique<Scenario>(parse_scenario(request.at("scenario").get<std::string>(),
                                                          request.at("file").get<std::string>(),
                                                          request.at("overrides").get<std::vector<std::string>>(),
                                                          ScenarioPaths::kRefuse));
    Host::Options options;
    options.index = request.at("host").get<int>();
    options.hosts = static_cast<int>(scenario_->cluster.hosts.size());
    options.listen_address = options_.listen_address;
    options.token = options_.token;
    if (request.value("nic_cap", false)) options.nic_bytes_per_s = scenario_->cluster.nic_gbps * 1e9 / 8;
    if (request.at("delay_line").get<bool>()) {
      const int n = static_cast<int>(scenario_->cluster.hosts.size());
      for (int from = 0; from < n; ++from) {
        options.one_way_delay.push_back(std::chrono::nanoseconds(scenario_->cluster.rtt.rtt(from, options.index) / 2));
      }
    }
    host_ = std::make_unique<Host>(options);
    host_->set_failure_handler([this](const std::string& reason) {
      std::lock_guard lock(runs_mutex_);
      for (auto& [id, run] : runs_) run.stats->fail(reason);
    });
    return {{"op", "ready"}, {"data_port", host_->endpoint().port()}, {"cores", usable_cores()},
            {"boot_id", boot_id()}};
  }

  json on_connect(const json& request) {
    std::vector<asio::ip::tcp::endpoint> peers;
    for (const auto& p : request.at("peers")) {
      peers.emplace_back(asio::ip::make_address(p.at("address").get<std::string>()), p.at("port").get<unsigned short>());
    }
    host_->connect(peers);
    return {{"op", "connected"}};
  }

  json on_prepare(const json& request) {
    const std::string name = request.at("policy").get<std::string>();
    const Policy* policy = nullptr;
    for (const auto& p : scenario_->policies) {
      if (p.name == name) policy = &p;
    }
    if (!policy) throw std::runtime_error("no policy " + name);
    const auto id = request.at("run").get<std::uint32_t>();
    PartSpec spec{request.at("query").get<std::size_t>(), request.at("repetition").get<int>(),
                  request.at("exchange").get<std::size_t>(), id,
                  std::chrono::steady_clock::now() + std::chrono::seconds(request.at("timeout_s").get<int>()),
                  random_share(*policy, request.at("query").get<std::size_t>(), request.at("exchange").get<std::size_t>())};
    ActiveRun run;
    run.stats = std::make_unique<RunStats>(static_cast<int>(scenario_->cluster.hosts.size()));
    run.stats->host_ledger = &ledger_;
    run.stats->receiver_ledger = &receiver_ledger_;
    run.stats->trace = trace_.get();
    run.stats->trace_label = scenario_->queries.at(spec.query).name + " " +
                             scenario_->queries.at(spec.query).exchanges.at(spec.exchange).id;
    run.part = std::make_unique<ExchangePart>(*host_, *scenario_, *policy, spec, *run.stats);
    run.part->prepare();
    std::lock_guard lock(runs_mutex_);
    runs_[id] = std::move(run);
    return {{"op", "prepared"}, {"run", id}};
  }

  json on_start(const json& request) {
    const auto id = request.at("run").get<std::uint32_t>();
    std::lock_guard lock(runs_mutex_);
    ActiveRun& run = runs_.at(id);
    const std::int64_t started_ns = steady_now_ns();
    run.part->start();
    run.waiter = std::thread([this, id, started_ns, part = run.part.get(), stats = run.stats.get()] {
      const bool ok = part->wait();
      reactor_decode_ns_ += stats->cpu_decode_on_reactor.load();
      json done = {{"op", "done"}, {"run", id}, {"ok", ok}, {"error", stats->failure()},
                   {"stats", stats_to_json(*stats, host_->index())}, {"sender_peak_bytes", peak(ledger_)},
                   {"receiver_peak_bytes", peak(receiver_ledger_)}};
      // The longest stall during its part of the run (net/stall_watch.h).
      if (const auto stall = host_->longest_stall(started_ns, steady_now_ns())) {
        done["stall"] = {{"ns", stall->length_ns}, {"what", stall->what}};
      }
      channel_->send(done.dump());
    });
    return nullptr;  // "done" follows when the run ends
  }

  // The coordinator has every agent's "done": tear the run down.
  json on_release(const json& request) {
    const auto id = request.at("run").get<std::uint32_t>();
    ActiveRun run;
    {
      std::lock_guard lock(runs_mutex_);
      run = std::move(runs_.at(id));
      runs_.erase(id);
    }
    if (run.waiter.joinable()) run.waiter.join();
    return nullptr;
  }

  // A new policy: peaks and the reactor's CPU start again.
  json on_reset_memory(const json& request) {
    for (auto* ledger : {&ledger_, &receiver_ledger_}) {
      std::lock_guard lock(ledger->mutex);
      ledger->peak = ledger->now;
    }
    reactor_cpu_start_ = host_->reactor_cpu_ns();
    reactor_decode_ns_ = 0;
    // Tracing, for this policy's runs: spans from now on.
    trace_.reset();
    if (request.contains("trace")) trace_ = std::make_unique<TraceRecorder>(request.at("trace").get<std::size_t>());
    return {{"op", "reset"}};
  }

  // The end of a policy: the reactor's CPU less the batches it decoded is RPC work.
  json on_cpu(const json& /*request*/) {
    json reply{{"op", "cpu"}, {"rpc_ns", host_->reactor_cpu_ns() - reactor_cpu_start_ - reactor_decode_ns_.load()}};
    if (trace_) reply["trace"] = trace_->json("measured");
    return reply;
  }

  // `calibrate --hosts`: the path to a peer, and this host's CPU costs (cluster_probes.h).
  json on_probe(const json& request) { return probe_reply(*host_, request); }
  json on_calibrate_cpu(const json& request) { return calibrate_cpu_reply(request); }
  // This host's speed now (transport/testbed/speed_probe.h): after its
  // calibration, and around each run a cluster's validation holds to it.
  json on_speed(const json& /*request*/) { return {{"op", "speed"}, {"probe_us", speed_now_us()}}; }
  // {"op": "cores_awake", "hold": bool}: this machine's cores held out of deep
  // idle states (testbed/awake_cores.h) until told otherwise or the agent
  // ends; the reply says whether they are and, when asked and refused, why.
  json on_cores_awake(const json& request) {
    awake_.reset();
    if (request.at("hold").get<bool>()) awake_ = std::make_unique<AwakeCores>();
    json reply{{"op", "cores_awake"}, {"held", awake_ && awake_->held()}};
    if (awake_ && !awake_->held()) reply["why_not"] = awake_->why_not();
    return reply;
  }

  // Another agent failed: stop at once.
  json on_fail(const json& request) {
    std::lock_guard lock(runs_mutex_);
    for (auto& [id, run] : runs_) run.part->cancel(request.at("error").get<std::string>());
    return nullptr;
  }

  // An exchange is held from "prepare" until the coordinator's "release",
  // which comes once every agent is done: an agent whose own part ended early
  // still waits for the others without an idle timeout.
  bool running() {
    std::lock_guard lock(runs_mutex_);
    return !runs_.empty();
  }

  // The generator's calibration for an exchange, computed once (it compresses
  // sample batches) and the same on every agent: it depends only on the scenario.
  double random_share(const Policy& policy, std::size_t query, std::size_t exchange) {
    const auto key = std::make_tuple(policy.name, query, exchange);
    auto it = calibrations_.find(key);
    if (it != calibrations_.end()) return it->second;
    const double share = random_share_for(*scenario_, policy, query, exchange);
    calibrations_[key] = share;
    return share;
  }

  static std::int64_t peak(RunStats::HostLedger& ledger) {
    std::lock_guard lock(ledger.mutex);
    return ledger.peak;
  }

  AgentOptions options_;
  Reactor reactor_;
  std::unique_ptr<ControlChannel> channel_;
  std::unique_ptr<Scenario> scenario_;
  std::unique_ptr<Host> host_;
  std::unique_ptr<TraceRecorder> trace_;  // this policy's spans, when the coordinator asked for them
  std::unique_ptr<AwakeCores> awake_;     // while the coordinator has the cores held awake
  std::mutex runs_mutex_;
  std::map<std::uint32_t, ActiveRun> runs_;
  RunStats::HostLedger ledger_;
  RunStats::HostLedger receiver_ledger_;
  std::int64_t reactor_cpu_start_ = 0;
  std::atomic<std::int64_t> reactor_decode_ns_{0};
  std::map<std::tuple<std::string, std::size_t, std::size_t>, double> calibrations_;
};

}  // namespace

int run_agent(const AgentOptions& options) {
  try {
    // One coordinator a session; with keep_serving, sessions one after
    // another on the same port, each agent's state its own, until one ends
    // otherwise than by its coordinator's shutdown (the idle timeout, say).
    int code = 0;
    do {
      Agent agent(options);
      code = agent.serve();
    } while (options.keep_serving && code == 0);
    return code;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "exsim agent: %s\n", e.what());
    return 3;
  }
}

}  // namespace exsim::transport
