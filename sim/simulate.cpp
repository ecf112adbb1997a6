#include "sim/simulate.h"

#include <algorithm>
#include <memory>
#include <stdexcept>
#include <vector>

#include "models/rules/partitioning.h"
#include "models/rules/sender_memory.h"
#include "sim/alone_runs.h"
#include "sim/event_run.h"
#include "sim/kept_runs.h"
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
// exchanges start together unless `after` orders them. With `alone_runs`, the
// leading exchanges that run alone are taken from it (sim/alone_runs.h):
// simulated apart or kept from another simulation, the same figures either
// way. Only those lead: once an exchange has run in this model, the CPU and
// memory marks the next one starts from are this simulation's own, which no
// other shares, and keeping its runs would only fill the cache.
class QueryDriver final : public ExchangeRun::Listener, public sim::EventHandler {
 public:
  QueryDriver(ModelContext& context, RunResult& result, std::vector<sim::EventRun::Track>& tracks,
              sim::AloneRunCache* alone_runs, std::string scheduler)
      : context_(context), result_(result), tracks_(tracks), alone_runs_(alone_runs), scheduler_(std::move(scheduler)) {}

  void start() { start_query(); }

  void exchange_finished(ExchangeRun& /*run*/) override { one_finished(); }

  void on_event(std::uint64_t tag) override {
    if (tag > 0) {  // an exchange taken apart ends
      apart_end_[tag - 1] = context_.simulator.now();
      one_finished();
      return;
    }
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
  // The events, RPC records and queue of the runs taken apart and simulated in this call.
  const SimulationCounters& apart_counters() const { return apart_counters_; }

 private:
  const Query& query() const { return context_.scenario.queries[query_index_]; }
  std::uint64_t seed_of(std::size_t x) const { return exchange_seed(context_.scenario, query_index_, repetition_, x); }

  void one_finished() {
    ++finished_;
    start_ready();
    // Tear down only from a fresh event: this call comes from deep inside the run.
    if (finished_ == runs_.size()) context_.simulator.after(0, this, 0);
  }

  void start_query() {
    runs_.clear();
    started_.clear();
    finished_ = 0;
    query_started_ = context_.simulator.now();
    const Query& q = query();
    context_.query = q.name;
    const std::vector<bool> alone =
        alone_runs_ && leading_ ? sim::runs_alone(q) : std::vector<bool>(q.exchanges.size(), false);
    for (std::size_t x = 0; x < q.exchanges.size(); ++x) {
      // One that runs alone is made when it starts, if the cache cannot take it.
      runs_.push_back(alone[x] ? nullptr : std::make_unique<ExchangeRun>(context_, q.exchanges[x], seed_of(x), *this));
    }
    started_.assign(runs_.size(), false);
    apart_.assign(runs_.size(), nullptr);
    apart_start_.assign(runs_.size(), -1);
    apart_end_.assign(runs_.size(), -1);
    start_ready();
  }

  SimTime finished_at(std::size_t x) const { return runs_[x] ? runs_[x]->finished_at() : apart_end_[x]; }

  void start_ready() {
    const Query& q = query();
    for (std::size_t x = 0; x < runs_.size(); ++x) {
      if (started_[x]) continue;
      bool ready = std::all_of(q.exchanges[x].after.begin(), q.exchanges[x].after.end(),
                               [&](int dep) { return finished_at(static_cast<std::size_t>(dep)) >= 0; });
      if (!ready) continue;
      started_[x] = true;
      if (runs_[x] || !leading_ || !context_.memory.idle()) {
        if (!runs_[x]) runs_[x] = std::make_unique<ExchangeRun>(context_, q.exchanges[x], seed_of(x), *this);
        runs_[x]->start();
        leading_ = false;
      } else {
        take_apart(x);
      }
    }
  }

  // Exchange x, which runs alone, from the cache: the model as the run leaves
  // it, and its end when its time has passed.
  void take_apart(std::size_t x) {
    const sim::AloneRunCache::Taken taken = alone_runs_->run(context_, query().exchanges[x], seed_of(x), scheduler_);
    apart_[x] = taken.run;
    const sim::AloneRun& run = *apart_[x];
    apart_start_[x] = context_.simulator.now();
    context_.cpu = run.cpu;
    context_.memory.set_peaks(run.peaks);
    sim::AloneRun::add(context_.rpc_network_ns, run.rpc_network_ns);
    sim::AloneRun::add(context_.rpc_receiver_ns, run.rpc_receiver_ns);
    sim::AloneRun::add(context_.sender_wake_ns, run.sender_wake_ns);
    context_.rows_produced += query().exchanges[x].rows;
    if (taken.simulated) {  // the engine's work in this simulation, for benchmarks
      apart_counters_.events += run.events;
      apart_counters_.rpc_records = std::max(apart_counters_.rpc_records, run.rpc_records);
      apart_counters_.max_pending = std::max(apart_counters_.max_pending, run.max_pending);
    }
    context_.simulator.after(run.duration, this, x + 1);
  }

  // Exchange x's record; one taken apart with its clock moved to when it started here.
  sim::RecordedRun recorded(std::size_t x) const {
    if (runs_[x]) return sim::record_run(*runs_[x], query().name, repetition_);
    sim::RecordedRun r = apart_[x]->recorded;
    const SimTime offset = apart_start_[x];
    r.result.query = query().name;  // a cache may hold a run another scenario's query made
    r.result.repetition = repetition_;
    r.track.start += offset;
    r.track.end += offset;
    for (sim::ProgressMark& mark : r.track.marks) {
      if (mark.at >= 0) mark.at += offset;
    }
    return r;
  }

  void record_query() {
    const Query& q = query();
    const double wall = static_cast<double>(context_.simulator.now() - query_started_) * 1e-9;
    std::vector<Bytes> sums(context_.scenario.cluster.hosts.size(), 0);
    if (repetition_ == 0) result_.queries.push_back({q.name, q.repeat, 0});
    result_.queries.back().wall_s += wall;
    for (std::size_t x = 0; x < runs_.size(); ++x) {
      sim::RecordedRun r = recorded(x);
      result_.add_exchange(std::move(r.result));
      tracks_.push_back(r.track);
      const Bytes estimate = planner_sender_estimate(q.exchanges[x]);
      for (const auto& [host, peak] : r.sender_peaks) {
        sums[static_cast<std::size_t>(host)] += peak;
        result_.planner.add(peak, estimate);
        result_.planner.by_kind[to_string(q.exchanges[x].kind)].add(peak, estimate);
      }
    }
    peak_sums_.resize(sums.size(), 0);
    for (std::size_t h = 0; h < sums.size(); ++h) peak_sums_[h] = std::max(peak_sums_[h], sums[h]);
  }

  ModelContext& context_;
  RunResult& result_;
  std::vector<sim::EventRun::Track>& tracks_;
  sim::AloneRunCache* alone_runs_;
  std::string scheduler_;
  bool leading_ = true;  // every exchange so far taken from alone_runs_
  std::size_t query_index_ = 0;
  int repetition_ = 0;
  SimTime query_started_ = 0;
  std::vector<std::unique_ptr<ExchangeRun>> runs_;  // null: taken apart, or not made yet
  std::vector<bool> started_;
  std::vector<std::shared_ptr<const sim::AloneRun>> apart_;
  std::vector<SimTime> apart_start_, apart_end_;
  SimulationCounters apart_counters_;
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
  // A trace shows every span on one clock: nothing is taken apart.
  sim::AloneRunCache* alone_runs = options.kept && !options.trace ? &options.kept->alone : nullptr;
  QueryDriver driver(context, result, run.tracks, alone_runs, options.scheduler);
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
  const SimulationCounters& apart = driver.apart_counters();
  run.counters.events = context.simulator.events_processed() + apart.events;
  run.counters.rpc_records = std::max<std::uint64_t>(context.transport->rpcs_allocated(), apart.rpc_records);
  run.counters.max_pending = std::max(context.simulator.max_pending(), apart.max_pending);
  return run;
}

}  // namespace sim

RunResult simulate(const Scenario& scenario, const Policy& policy, const SimulateOptions& options,
                   SimulationCounters* counters) {
  // A trace shows every span as it happened: its runs are simulated whole.
  if (!options.exact && !options.trace) {
    if (auto fast = sim::fast_forward(scenario, policy, options, counters)) return std::move(*fast);
  }
  // Exact: nothing taken from other simulations either, a reference on its own.
  SimulateOptions whole = options;
  if (options.exact) whole.kept = nullptr;
  sim::EventRun run = sim::simulate_events(scenario, policy, whole);
  if (counters) *counters = run.counters;
  return std::move(run.result);
}

}  // namespace exsim
