#include "sim/fast_forward.h"

#include <algorithm>
#include <cmath>

#include "models/rules/partitioning.h"
#include "models/rules/sizing_policy.h"
#include "sim/event_run.h"
#include "sim/exchange/sender.h"
#include "sim/run_extension.h"

namespace exsim::sim {
namespace {

// A shortened exchange's rows in the shortened run, or half of them.
std::int64_t shortened_rows(const Exchange& exchange, double fraction, bool half) {
  const auto rows = std::max<std::int64_t>(exchange.senders.instances(),
                                           std::llround(static_cast<double>(exchange.rows) * fraction / 2));
  return half ? rows : 2 * rows;
}

class Unheard final : public ExchangeRun::Listener {
 public:
  void exchange_finished(ExchangeRun& /*run*/) override {}
};

std::vector<RunRows> run_rows(const Scenario& scenario, const Shortening& plan, const Scenario& shortened,
                              const Policy& policy) {
  const std::vector<CountedRun> counted = count_exchange_runs(scenario, policy, &plan);
  const std::vector<CountedRun> counted_shortened = count_exchange_runs(shortened, policy, &plan);
  std::vector<RunRows> runs;
  for (std::size_t q = 0; q < scenario.queries.size(); ++q) {
    const Query& query = scenario.queries[q];
    for (int rep = 0; rep < query.repeat; ++rep) {
      for (std::size_t x = 0; x < query.exchanges.size(); ++x) {
        const std::size_t i = runs.size();
        runs.push_back({q, query.name + "/" + query.exchanges[x].id, static_cast<double>(query.exchanges[x].rows),
                        static_cast<double>(shortened.queries[q].exchanges[x].rows), plan.shortened[q][x], counted.at(i),
                        counted_shortened.at(i)});
      }
    }
  }
  return runs;
}

void add_counters(SimulationCounters* total, const SimulationCounters& run) {
  if (!total) return;
  total->events += run.events;
  total->rpc_records = std::max(total->rpc_records, run.rpc_records);
  total->max_pending = std::max(total->max_pending, run.max_pending);
}

}  // namespace

double calls_per_channel(const Policy& policy, const Exchange& x) {
  const double per_sender = static_cast<double>(x.rows) / std::max(1, x.senders.instances());
  const int channels = std::max(1, x.receivers.instances());
  const double mean_row = static_cast<double>(x.row.fixed_bytes) + x.row.varlen.mean();
  const auto input_rows = static_cast<double>(full_input_batch(mean_row, x.input_batch_rows).rows);
  switch (x.send_path()) {
    case PartitionKind::kHash: {
      const auto batch = full_channel_batch(channel_capacity(policy, x.row, channels), mean_row).rows;
      return per_sender / channels / static_cast<double>(std::max<std::int64_t>(1, batch));
    }
    case PartitionKind::kBroadcast:
      return per_sender / input_rows;  // every input batch goes whole to every channel
    case PartitionKind::kRandom:
    case PartitionKind::kMerge:
      break;
  }
  return per_sender / channels / input_rows;  // whole input batches, a channel after another
}

Shortening plan_shortening(const Scenario& scenario, const Policy& policy) {
  Shortening plan;
  double fraction = 0;
  // The simulator's work goes with the calls: the whole run's, and the
  // shortened run's (the exchanges not shortened simulated whole in it).
  double whole = 0, kept = 0, shortened = 0;
  for (const Query& q : scenario.queries) {
    plan.shortened.emplace_back();
    for (const Exchange& x : q.exchanges) {
      const double per_channel = calls_per_channel(policy, x);
      const double calls = per_channel * x.senders.instances() * x.receivers.instances();
      const double shortest = std::max(kRunCalls / per_channel, kRunTotalCalls / calls);
      const bool shorten = shortest <= kLargestFraction;
      plan.shortened.back().push_back(shorten);
      whole += calls * q.repeat;
      (shorten ? shortened : kept) += calls * q.repeat;
      if (shorten) fraction = std::max(fraction, shortest);
    }
  }
  // Worth it when the run saves a quarter of the work; a second run along a
  // line, when both together save half.
  if (fraction == 0 || kept + fraction * shortened > 0.75 * whole) return {};
  plan.fraction = fraction;
  plan.by_line = fraction <= kLargestLineFraction && 2 * kept + 1.5 * fraction * shortened <= 0.5 * whole;
  return plan;
}

Scenario shortened_scenario(const Scenario& scenario, const Shortening& plan, bool half) {
  Scenario s = scenario;
  for (std::size_t q = 0; q < s.queries.size(); ++q) {
    for (std::size_t x = 0; x < s.queries[q].exchanges.size(); ++x) {
      Exchange& e = s.queries[q].exchanges[x];
      if (plan.shortened[q][x]) e.rows = shortened_rows(e, plan.fraction, half);
    }
  }
  return s;
}

std::vector<CountedRun> count_exchange_runs(const Scenario& scenario, const Policy& policy, const Shortening* only) {
  std::vector<CountedRun> counts;
  ModelContext context(scenario, policy, make_scheduler("calendar"));
  Unheard unheard;
  for (std::size_t q = 0; q < scenario.queries.size(); ++q) {
    const Query& query = scenario.queries[q];
    for (int rep = 0; rep < query.repeat; ++rep) {
      for (std::size_t x = 0; x < query.exchanges.size(); ++x) {
        CountedRun counted;
        if (only && !only->shortened[q][x]) {
          counts.push_back(counted);
          continue;
        }
        ExchangeRun run(context, query.exchanges[x], exchange_seed(scenario, q, rep, x), unheard);
        for (const auto& sender : run.senders()) {
          sender->count_sends(counted.counts);
          counted.rooms += sender->buffer_rooms();
        }
        counts.push_back(counted);
      }
    }
  }
  return counts;
}

std::optional<RunResult> fast_forward(const Scenario& scenario, const Policy& policy, const SimulateOptions& options,
                                      SimulationCounters* counters) {
  const Shortening plan = plan_shortening(scenario, policy);
  if (!plan.any()) return std::nullopt;
  SimulateOptions exact = options;
  exact.exact = true;
  const Scenario shortened = shortened_scenario(scenario, plan);
  const EventRun run = simulate_events(shortened, policy, exact);
  if (counters) *counters = run.counters;
  const std::vector<RunRows> runs = run_rows(scenario, plan, shortened, policy);
  FastForwardNote note;
  for (const RunRows& r : runs) {
    if (r.shortened && std::find(note.shortened.begin(), note.shortened.end(), r.name) == note.shortened.end()) {
      note.shortened.push_back(r.name);
    }
  }
  std::string why = why_not_stretched(run, runs);
  if (why.empty()) {
    RunResult result = stretched(run, runs);
    note.rows_simulated = {plan.fraction};
    result.fast_forward = std::move(note);
    return result;
  }
  if (plan.by_line) {
    const EventRun shorter = simulate_events(shortened_scenario(scenario, plan, /*half=*/true), policy, exact);
    add_counters(counters, shorter.counters);
    why = why_not_along_line(shorter, run, runs);
    if (why.empty()) {
      RunResult result = along_line(shorter, run, runs);
      note.rows_simulated = {plan.fraction / 2, plan.fraction};
      result.fast_forward = std::move(note);
      return result;
    }
  }
  EventRun whole = simulate_events(scenario, policy, exact);
  add_counters(counters, whole.counters);
  whole.result.fast_forward.declined = why;
  return std::move(whole.result);
}

}  // namespace exsim::sim
