#include "sim/fast_forward.h"

#include <algorithm>
#include <cmath>

#include "models/rules/partitioning.h"
#include "models/rules/sizing_policy.h"
#include "sim/alone_runs.h"
#include "sim/kept_runs.h"
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

// `counted`: the whole scenario's counts of the shortened exchanges (the same
// for any fractions of the same exchanges).
std::vector<RunRows> run_rows(const Scenario& scenario, const Shortening& plan, const Scenario& shortened,
                              const Policy& policy, const std::vector<CountedRun>& counted) {
  const std::vector<CountedRun> counted_shortened = count_exchange_runs(shortened, policy, &plan);
  std::vector<RunRows> runs;
  for (std::size_t q = 0; q < scenario.queries.size(); ++q) {
    const Query& query = scenario.queries[q];
    for (int rep = 0; rep < query.repeat; ++rep) {
      for (std::size_t x = 0; x < query.exchanges.size(); ++x) {
        const std::size_t i = runs.size();
        runs.push_back({q, x, query.name + "/" + query.exchanges[x].id, static_cast<double>(query.exchanges[x].rows),
                        static_cast<double>(shortened.queries[q].exchanges[x].rows), plan.shortened(q, x), counted.at(i),
                        counted_shortened.at(i)});
      }
    }
  }
  return runs;
}

// The note's shortened exchanges, each once (a query repeated runs them again),
// with the share of its rows each was simulated at.
FastForwardNote shortened_note(const std::vector<RunRows>& runs) {
  FastForwardNote note;
  for (const RunRows& r : runs) {
    if (r.shortened && std::find(note.shortened.begin(), note.shortened.end(), r.name) == note.shortened.end()) {
      note.shortened.push_back(r.name);
      note.rows_simulated.push_back(r.simulated / r.whole);
    }
  }
  return note;
}

// Adds to `counted` (by exchange run, as count_exchange_runs gives them) the
// counts of those `plan` shortens that it does not have yet.
void count_missing(const Scenario& scenario, const Policy& policy, const Shortening& plan,
                   std::vector<CountedRun>& counted, CountCache* cache) {
  if (cache) {
    // Those counted before, under the same policy and the costs a count reads.
    const std::vector<CountedRun> kept = cache->kept(scenario, policy);
    counted.resize(std::max(counted.size(), kept.size()));
    for (std::size_t r = 0; r < kept.size(); ++r) {
      if (counted[r].counts.rpcs == 0 && kept[r].counts.rpcs > 0) counted[r] = kept[r];
    }
  }
  Shortening missing = plan;
  std::size_t i = 0;
  for (std::size_t q = 0; q < scenario.queries.size(); ++q) {
    for (int rep = 0; rep < scenario.queries[q].repeat; ++rep) {
      for (std::size_t x = 0; x < scenario.queries[q].exchanges.size(); ++x, ++i) {
        if (i < counted.size() && counted[i].counts.rpcs > 0) missing.fraction[q][x] = 1;
      }
    }
  }
  if (!missing.any()) return;
  std::vector<CountedRun> more = count_exchange_runs(scenario, policy, &missing);
  counted.resize(more.size());
  for (std::size_t r = 0; r < more.size(); ++r) {
    if (more[r].counts.rpcs > 0) counted[r] = more[r];
  }
  if (cache) cache->keep(scenario, policy, more);
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

bool Shortening::any() const {
  for (const auto& query : fraction) {
    for (double f : query) {
      if (f < 1) return true;
    }
  }
  return false;
}


ShorteningPlan plan_shortening(const Scenario& scenario, const Policy& policy) {
  ShorteningPlan plan;
  for (const Query& q : scenario.queries) {
    const std::vector<bool> alone = runs_alone(q);
    plan.needs.emplace_back();
    plan.calls.emplace_back();
    plan.alone.push_back(alone);
    for (const Exchange& x : q.exchanges) {
      const double per_channel = calls_per_channel(policy, x);
      const double calls = per_channel * x.senders.instances() * x.receivers.instances();
      const double needs = std::max(kRunCalls / per_channel, kRunTotalCalls / calls);
      plan.needs.back().push_back(needs <= kLargestFraction ? needs : 1.0);
      plan.calls.back().push_back(calls * q.repeat);
    }
  }
  return plan;
}

void ShorteningPlan::lengthen(std::size_t query, std::size_t exchange) {
  double& f = needs[query][exchange];
  f = kLengthening * f <= kLargestFraction ? kLengthening * f : 1.0;
}

// The simulator's work goes with the calls: the whole run's, and the
// shortened run's (the exchanges not shortened simulated whole in it).
Shortening ShorteningPlan::stretch() const {
  Shortening s;
  double whole = 0, simulated = 0;
  for (std::size_t q = 0; q < needs.size(); ++q) {
    s.fraction.emplace_back();
    for (std::size_t x = 0; x < needs[q].size(); ++x) {
      const double f = alone[q][x] ? needs[q][x] : 1.0;
      s.fraction.back().push_back(f);
      whole += calls[q][x];
      simulated += f * calls[q][x];
    }
  }
  // Worth it when the run saves a quarter of the work.
  return s.any() && simulated <= 0.75 * whole ? s : Shortening{};
}

Shortening ShorteningPlan::line() const {
  Shortening s;
  double common = 0, whole = 0, kept = 0, shortened = 0;
  for (std::size_t q = 0; q < needs.size(); ++q) {
    for (std::size_t x = 0; x < needs[q].size(); ++x) {
      whole += calls[q][x];
      (needs[q][x] < 1 ? shortened : kept) += calls[q][x];
      if (needs[q][x] < 1) common = std::max(common, needs[q][x]);
    }
  }
  // Two runs (the exchanges not shortened simulated whole in both), worth
  // them when together they save half.
  if (shortened == 0 || common > kLargestLineFraction || 2 * kept + 1.5 * common * shortened > 0.5 * whole) return {};
  for (const auto& query : needs) {
    s.fraction.emplace_back();
    for (double f : query) s.fraction.back().push_back(f < 1 ? common : 1.0);
  }
  return s;
}

Scenario shortened_scenario(const Scenario& scenario, const Shortening& plan, bool half) {
  Scenario s = scenario;
  for (std::size_t q = 0; q < s.queries.size(); ++q) {
    for (std::size_t x = 0; x < s.queries[q].exchanges.size(); ++x) {
      Exchange& e = s.queries[q].exchanges[x];
      if (plan.shortened(q, x)) e.rows = shortened_rows(e, plan.fraction[q][x], half);
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
        if (only && !only->shortened(q, x)) {
          counts.push_back(counted);
          continue;
        }
        ExchangeRun run(context, query.exchanges[x], exchange_seed(scenario, q, rep, x), unheard);
        const double compress_before = context.cpu.compress;
        for (const auto& sender : run.senders()) {
          sender->count_sends(counted.counts);
          counted.rooms += sender->buffer_rooms();
        }
        counted.compress_s = context.cpu.compress - compress_before;
        counts.push_back(counted);
      }
    }
  }
  return counts;
}

std::optional<RunResult> fast_forward(const Scenario& scenario, const Policy& policy, const SimulateOptions& options,
                                      SimulationCounters* counters) {
  ShorteningPlan plan = plan_shortening(scenario, policy);
  if (!plan.any()) return std::nullopt;
  SimulateOptions exact = options;
  exact.exact = true;
  if (counters) *counters = {};
  // The whole scenario's counts, each exchange run counted once whichever
  // shortened run needs it; each shortened run's exchange runs with their rows
  // and counts. Counting tells before any simulation which exchanges' buffers
  // the whole run grows beyond a shortened run's: those are simulated whole.
  std::vector<CountedRun> counted;
  std::string why;
  const auto rows_of = [&](const Shortening& shortening, const Scenario& shortened) {
    count_missing(scenario, policy, shortening, counted, options.kept ? &options.kept->counts : nullptr);
    return run_rows(scenario, shortening, shortened, policy, counted);
  };
  const auto keep_growing_whole = [&](const std::vector<RunRows>& runs) {
    bool any = false;
    for (const RunRows& r : runs) {
      if (!r.shortened) continue;
      if (std::string grows = why_buffers_grow_later(r); !grows.empty()) {
        plan.keep_whole(r.query, r.exchange);
        why = std::move(grows);
        any = true;
      }
    }
    return any;
  };
  // Stretched: a run, and if an exchange keeps it from being extended, one
  // more without that exchange shortened.
  struct Simulated {
    Shortening shortening;
    EventRun run;
  };
  std::optional<Simulated> last;
  for (int runs_left = 2; runs_left > 0;) {
    const Shortening stretch = plan.stretch();
    if (!stretch.any()) break;
    const Scenario shortened = shortened_scenario(scenario, stretch);
    const std::vector<RunRows> rows = rows_of(stretch, shortened);
    if (keep_growing_whole(rows)) continue;
    last = Simulated{stretch, simulate_events(shortened, policy, exact)};
    add_counters(counters, last->run.counters);
    --runs_left;
    const NotStretched no = why_not_stretched(last->run, rows);
    if (no.why.empty()) {
      RunResult result = stretched(last->run, rows);
      result.fast_forward = shortened_note(rows);
      return result;
    }
    why = no.why;
    if (no.longer_helps) {
      plan.lengthen(rows[no.run].query, rows[no.run].exchange);
    } else {
      plan.keep_whole(rows[no.run].query, rows[no.run].exchange);
    }
  }
  // Along a line: the last stretched run is its longer run when it shortened
  // the same exchanges alike.
  for (Shortening line = plan.line(); line.any(); line = plan.line()) {
    const Scenario shortened = shortened_scenario(scenario, line);
    const std::vector<RunRows> rows = rows_of(line, shortened);
    if (keep_growing_whole(rows)) continue;
    if (!last || !(last->shortening == line)) {
      last = Simulated{line, simulate_events(shortened, policy, exact)};
      add_counters(counters, last->run.counters);
    }
    const EventRun shorter = simulate_events(shortened_scenario(scenario, line, /*half=*/true), policy, exact);
    add_counters(counters, shorter.counters);
    why = why_not_along_line(shorter, last->run, rows);
    if (why.empty()) {
      RunResult result = along_line(shorter, last->run, rows);
      result.fast_forward = shortened_note(rows);
      result.fast_forward.along_line = true;
      return result;
    }
    break;
  }
  EventRun whole = simulate_events(scenario, policy, exact);
  add_counters(counters, whole.counters);
  whole.result.fast_forward.declined = why;
  return std::move(whole.result);
}

}  // namespace exsim::sim
