#include "sim/simulate.h"

#include <algorithm>
#include <memory>
#include <stdexcept>
#include <vector>

#include "models/rules/partitioning.h"
#include "models/rules/sender_memory.h"
#include "sim/event_run.h"
#include "sim/exchange/exchange_run.h"
#include "sim/exchange/rpc_transport.h"
#include "sim/exchange/sender.h"
#include "sim/fast_forward.h"

namespace exsim {
namespace {

using sim::ExchangeRun;
using sim::ModelContext;
using sim::SimTime;

// Runs the queries one after another, each `repeat` times; within a query,
// exchanges start together unless `after` orders them.
class QueryDriver final : public ExchangeRun::Listener, public sim::EventHandler {
 public:
  QueryDriver(ModelContext& context, RunResult& result, std::vector<sim::EventRun::Track>& tracks)
      : context_(context), result_(result), tracks_(tracks) {}

  void start() { start_query(); }

  void exchange_finished(ExchangeRun& /*run*/) override {
    ++finished_;
    start_ready();
    // Tear down only from a fresh event: this call comes from deep inside the run.
    if (finished_ == runs_.size()) context_.simulator.after(0, this, 0);
  }

  void on_event(std::uint64_t /*tag*/) override {
    record_query();
    if (++repetition_ == query().repeat) {
      repetition_ = 0;
      ++query_index_;
    }
    if (query_index_ < context_.scenario.queries.size()) {
      start_query();
    } else {
      finished_at_ = context_.simulator.now();
    }
  }

  // When the last query ended; -1 while any has not.
  SimTime finished_at() const { return finished_at_; }
  // Per host, the largest over queries of the sum of its sender instances' peaks.
  const std::vector<Bytes>& sender_peak_sums() const { return peak_sums_; }

 private:
  const Query& query() const { return context_.scenario.queries[query_index_]; }

  void start_query() {
    runs_.clear();
    started_.clear();
    finished_ = 0;
    query_started_ = context_.simulator.now();
    const Query& q = query();
    context_.query = q.name;
    for (std::size_t x = 0; x < q.exchanges.size(); ++x) {
      const std::uint64_t seed = exchange_seed(context_.scenario, query_index_, repetition_, x);
      runs_.push_back(std::make_unique<ExchangeRun>(context_, q.exchanges[x], seed, *this));
    }
    started_.assign(runs_.size(), false);
    start_ready();
  }

  void start_ready() {
    const Query& q = query();
    for (std::size_t x = 0; x < runs_.size(); ++x) {
      if (started_[x]) continue;
      bool ready = std::all_of(q.exchanges[x].after.begin(), q.exchanges[x].after.end(),
                               [&](int dep) { return runs_[static_cast<std::size_t>(dep)]->finished_at() >= 0; });
      if (!ready) continue;
      started_[x] = true;
      runs_[x]->start();
    }
  }

  void record_query() {
    const Query& q = query();
    const double wall = static_cast<double>(context_.simulator.now() - query_started_) * 1e-9;
    std::vector<Bytes> sums(context_.scenario.cluster.hosts.size(), 0);
    if (repetition_ == 0) result_.queries.push_back({q.name, q.repeat, 0});
    result_.queries.back().wall_s += wall;
    for (const auto& run : runs_) {
      const sim::ExchangeStats& s = run->stats();
      ExchangeResult x;
      x.query = q.name;
      x.id = run->exchange().id;
      x.kind = to_string(run->exchange().kind);
      x.repetition = repetition_;
      x.wall_s = static_cast<double>(run->finished_at() - run->started_at()) * 1e-9;
      x.rows = s.rows_delivered;
      x.rpcs = s.rpcs;
      x.eos_rpcs = s.eos_rpcs;
      x.bytes_wire = s.bytes_wire;
      x.bytes_uncompressed = s.bytes_uncompressed;
      x.sender_blocked_s = static_cast<double>(s.blocked_ns) * 1e-9;
      x.deferred_rpcs = s.deferred_rpcs;
      if (s.rpcs > 0) {
        x.rpc_network_us_mean = static_cast<double>(s.network_ns) * 1e-3 / static_cast<double>(s.rpcs);
        x.rpc_receiver_us_mean = static_cast<double>(s.receiver_ns) * 1e-3 / static_cast<double>(s.rpcs);
      }
      for (std::size_t b = 0; b < kBounds; ++b) x.sender_time.seconds[b] = static_cast<double>(s.sender_time_ns[b]) * 1e-9;
      // After the last sender's end of stream is answered, the receivers still
      // drain their queues: every sender instance waits on the consumers.
      x.sender_time[Bound::kConsumer] += static_cast<double>((run->finished_at() - s.last_sender_done) *
                                                             static_cast<SimTime>(run->senders().size())) * 1e-9;
      x.sender_instance_peak_bytes = 0;
      for (const auto& sender : run->senders()) {
        x.sender_instance_peak_bytes = std::max(x.sender_instance_peak_bytes, sender->peak_bytes());
        x.impala_tracked_peak_bytes = std::max(x.impala_tracked_peak_bytes, sender->tracked_peak_bytes());
      }
      result_.add_exchange(std::move(x));
      sim::EventRun::Track track{run->started_at(), run->finished_at(), 0, 0, s.middle, s.marks};
      for (const auto& sender : run->senders()) {
        track.rooms += sender->buffer_rooms();
        track.outbound += sender->outbound_buffers();
      }
      tracks_.push_back(track);
      const Bytes estimate = planner_sender_estimate(run->exchange());
      for (const auto& sender : run->senders()) {
        sums[static_cast<std::size_t>(sender->host())] += sender->peak_bytes();
        result_.planner.add(sender->peak_bytes(), estimate);
        result_.planner.by_kind[to_string(run->exchange().kind)].add(sender->peak_bytes(), estimate);
      }
    }
    peak_sums_.resize(sums.size(), 0);
    for (std::size_t h = 0; h < sums.size(); ++h) peak_sums_[h] = std::max(peak_sums_[h], sums[h]);
  }

  ModelContext& context_;
  RunResult& result_;
  std::vector<sim::EventRun::Track>& tracks_;
  std::size_t query_index_ = 0;
  int repetition_ = 0;
  SimTime query_started_ = 0;
  std::vector<std::unique_ptr<ExchangeRun>> runs_;
  std::vector<bool> started_;
  std::vector<Bytes> peak_sums_;
  std::size_t finished_ = 0;
  SimTime finished_at_ = -1;
};

}  // namespace

namespace sim {

EventRun simulate_events(const Scenario& scenario, const Policy& policy, const SimulateOptions& options) {
  EventRun run;
  RunResult& result = run.result;
  describe_run(result, scenario, policy, "simulated");
  auto scheduler = sim::make_scheduler(options.scheduler);
  if (!scheduler) throw std::invalid_argument("unknown scheduler '" + options.scheduler + "'");
  ModelContext context(scenario, policy, std::move(scheduler));
  context.trace = options.trace;
  context.trace_pid_base = options.trace_pid_base;
  context.trace_prefix = policy.name + ": ";
  QueryDriver driver(context, result, run.tracks);
  driver.start();
  if (options.progress) {
    double rows = 0;  // every input row of the workload, each query as often as it repeats
    for (const Query& q : scenario.queries) {
      for (const Exchange& x : q.exchanges) rows += static_cast<double>(x.rows) * q.repeat;
    }
    while (context.simulator.run_for(std::max<std::uint64_t>(1, options.progress_events))) {
      options.progress(std::min(1.0, static_cast<double>(context.rows_produced) / rows));
    }
  } else {
    context.simulator.run();
  }

  if (driver.finished_at() < 0) {
    throw std::logic_error("internal error: the simulation ran out of events before every query ended (" +
                           std::to_string(result.queries.size()) + " of " + std::to_string(scenario.queries.size()) +
                           " queries recorded)");
  }
  // Superseded events may run after the end; the end is when the last query ended.
  result.wall_s = static_cast<double>(driver.finished_at()) * 1e-9;
  result.cpu_s = context.cpu;
  result.rpc_network = call_times_of(context.rpc_network_ns);
  result.rpc_receiver = call_times_of(context.rpc_receiver_ns);
  result.sender_wake = call_times_of(context.sender_wake_ns);
  std::vector<Bytes> sender_peak, receiver_peak;
  for (std::size_t h = 0; h < scenario.cluster.hosts.size(); ++h) {
    sender_peak.push_back(context.memory.sender_peak(static_cast<int>(h)));
    receiver_peak.push_back(context.memory.receiver_peak(static_cast<int>(h)));
  }
  describe_hosts(result, scenario, policy, sender_peak, receiver_peak);
  // As Impala's profiles add them up (simulated only).
  for (std::size_t h = 0; h < result.hosts.size(); ++h) result.hosts[h].sender_peak_sum_bytes = driver.sender_peak_sums().at(h);
  run.counters.events = context.simulator.events_processed();
  run.counters.rpc_records = context.transport->rpcs_allocated();
  run.counters.max_pending = context.simulator.max_pending();
  return run;
}

}  // namespace sim

RunResult simulate(const Scenario& scenario, const Policy& policy, const SimulateOptions& options,
                   SimulationCounters* counters) {
  // A trace shows every span as it happened: its runs are simulated whole.
  if (!options.exact && !options.trace) {
    if (auto fast = sim::fast_forward(scenario, policy, options, counters)) return std::move(*fast);
  }
  sim::EventRun run = sim::simulate_events(scenario, policy, options);
  if (counters) *counters = run.counters;
  return std::move(run.result);
}

}  // namespace exsim
