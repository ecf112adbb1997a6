#include "sim/fast_forward.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

#include "models/rules/partitioning.h"
#include "models/rules/sizing_policy.h"
#include "sim/event_run.h"
#include "sim/exchange/exchange_run.h"
#include "sim/exchange/sender.h"

namespace exsim::sim {
namespace {

// A shortened exchange's rows in the first run; `multiple` times them in the second.
std::int64_t shortened_rows(const Exchange& exchange, double fraction, int multiple) {
  const auto rows = std::max<std::int64_t>(exchange.senders.instances(),
                                           std::llround(static_cast<double>(exchange.rows) * fraction));
  return rows * multiple;
}

class Unheard final : public ExchangeRun::Listener {
 public:
  void exchange_finished(ExchangeRun& /*run*/) override {}
};

// The exchange runs' starts and ends in time order (ties by run, a start
// before its end): the ids are 2 x run for a start, 2 x run + 1 for an end.
std::vector<std::size_t> event_order(const std::vector<double>& start, const std::vector<double>& end) {
  std::vector<std::pair<double, std::size_t>> events;
  for (std::size_t i = 0; i < start.size(); ++i) {
    events.emplace_back(start[i], 2 * i);
    events.emplace_back(end[i], 2 * i + 1);
  }
  std::sort(events.begin(), events.end());
  std::vector<std::size_t> order;
  for (const auto& e : events) order.push_back(e.second);
  return order;
}

// Each exchange run in the order of RunResult::exchanges: its name, rows whole
// and in the longer shortened run.
struct RunRows {
  std::string name;
  double whole = 0, longer = 0;
  bool shortened = false;
};

std::vector<RunRows> run_rows(const Scenario& scenario, const Shortening& plan) {
  std::vector<RunRows> runs;
  for (std::size_t q = 0; q < scenario.queries.size(); ++q) {
    const Query& query = scenario.queries[q];
    for (int rep = 0; rep < query.repeat; ++rep) {
      for (std::size_t x = 0; x < query.exchanges.size(); ++x) {
        const Exchange& e = query.exchanges[x];
        const bool shortened = plan.shortened[q][x];
        runs.push_back({query.name + "/" + e.id, static_cast<double>(e.rows),
                        static_cast<double>(shortened ? shortened_rows(e, plan.fraction, 2) : e.rows), shortened});
      }
    }
  }
  return runs;
}

// Why the two shortened runs cannot be extrapolated along a line, or "".
std::string why_not_affine(const EventRun& a, const EventRun& b, double lambda, const std::vector<RunRows>& runs,
                           const std::vector<CountedRun>& counted, const std::vector<CountedRun>& counted_longer) {
  std::vector<double> start_a, end_a, start_b, end_b, start_x, end_x;
  const auto line = [lambda](double x, double y) { return x + (y - x) * lambda; };
  for (std::size_t i = 0; i < a.tracks.size(); ++i) {
    const auto t = [](SimTime ns) { return static_cast<double>(ns); };
    start_a.push_back(t(a.tracks[i].start));
    end_a.push_back(t(a.tracks[i].end));
    start_b.push_back(t(b.tracks[i].start));
    end_b.push_back(t(b.tracks[i].end));
    start_x.push_back(line(start_a.back(), start_b.back()));
    end_x.push_back(line(end_a.back(), end_b.back()));
  }
  const std::vector<std::size_t> order = event_order(start_a, end_a);
  if (event_order(start_b, end_b) != order || event_order(start_x, end_x) != order) {
    return "the exchanges start and end in another order when they run longer";
  }
  // A sender's footprint is its buffers' rooms and outbound buffers, which
  // only grow: its peak is the whole run's if they stopped growing before the
  // longer run's end. Between the runs, as simulated; after, as the batches
  // planned to the whole run's end show (planned alike to the longer run's).
  for (std::size_t i = 0; i < b.tracks.size(); ++i) {
    const EventRun::Track& tb = b.tracks[i];
    if (a.tracks[i].rooms != tb.rooms || a.tracks[i].outbound != tb.outbound) {
      return fmt::format("{}'s sender buffers still grow between the shortened runs", runs[i].name);
    }
    if (counted[i].rooms != counted_longer[i].rooms) {
      return fmt::format("{}'s sender buffers grow after the longer shortened run, for a batch larger than any in it",
                         runs[i].name);
    }
  }
  for (std::size_t h = 0; h < a.result.hosts.size(); ++h) {
    const HostResult& ha = a.result.hosts[h];
    const HostResult& hb = b.result.hosts[h];
    // A receiver's queue may reach a little further in a longer run.
    if (static_cast<double>(hb.receiver_peak_bytes - ha.receiver_peak_bytes) > kReceiverPeakDrift * static_cast<double>(ha.receiver_peak_bytes)) {
      return fmt::format("{}'s receiver memory peak grows with the rows ({} B, then {} B)", ha.name,
                         ha.receiver_peak_bytes, hb.receiver_peak_bytes);
    }
    if (ha.sender_peak_bytes != hb.sender_peak_bytes) {
      return fmt::format("{}'s sender memory peak grows with the rows ({} B, then {} B)", ha.name, ha.sender_peak_bytes,
                         hb.sender_peak_bytes);
    }
  }
  return "";
}

// The whole run's figures: times along the line through the two runs, except
// the senders' own (blocked, by bound), which the longer run's steady middle
// extends without the noise of two ends; calls and bytes as counted; memory
// peaks and call-time distributions the longer run's (peaks the same in both).
RunResult extrapolate(const RunResult& a, const EventRun& longer, double lambda, const std::vector<RunRows>& runs,
                      const std::vector<CountedRun>& counted) {
  const RunResult& b = longer.result;
  const auto line = [lambda](double x, double y) { return x + (y - x) * lambda; };
  RunResult r = b;
  r.wall_s = line(a.wall_s, b.wall_s);
  CpuByStage& cpu = r.cpu_s;
  for (auto stage : {&CpuByStage::produce, &CpuByStage::serialize, &CpuByStage::compress, &CpuByStage::call,
                     &CpuByStage::rpc, &CpuByStage::decompress, &CpuByStage::deserialize, &CpuByStage::consume}) {
    cpu.*stage = line(a.cpu_s.*stage, b.cpu_s.*stage);
  }
  for (std::size_t q = 0; q < r.queries.size(); ++q) r.queries[q].wall_s = line(a.queries[q].wall_s, b.queries[q].wall_s);
  r.exchanges.clear();
  r.rpcs = 0;
  r.bytes_wire = r.bytes_uncompressed = 0;
  for (std::size_t i = 0; i < b.exchanges.size(); ++i) {
    const ExchangeResult& xa = a.exchanges[i];
    ExchangeResult x = b.exchanges[i];
    const ExchangeStats& n = counted.at(i).counts;
    x.wall_s = line(xa.wall_s, x.wall_s);
    x.deferred_rpcs = std::llround(line(static_cast<double>(xa.deferred_rpcs), static_cast<double>(x.deferred_rpcs)));
    // Means per call: their sums extrapolated, over the calls counted.
    const auto mean = [&](double ma, double mb) {
      if (ma < 0 || mb < 0 || n.rpcs == 0) return mb;
      return line(ma * static_cast<double>(xa.rpcs), mb * static_cast<double>(x.rpcs)) / static_cast<double>(n.rpcs);
    };
    x.rpc_network_us_mean = mean(xa.rpc_network_us_mean, x.rpc_network_us_mean);
    x.rpc_receiver_us_mean = mean(xa.rpc_receiver_us_mean, x.rpc_receiver_us_mean);
    const SenderWindow& middle = longer.tracks[i].middle;
    if (runs[i].shortened && middle.rows > 0) {
      const double more = (runs[i].whole - runs[i].longer) / static_cast<double>(middle.rows) * 1e-9;
      x.sender_blocked_s += static_cast<double>(middle.blocked_ns) * more;
      for (std::size_t k = 0; k < kBounds; ++k) x.sender_time.seconds[k] += static_cast<double>(middle.time_ns[k]) * more;
    } else {
      x.sender_blocked_s = line(xa.sender_blocked_s, x.sender_blocked_s);
      for (std::size_t k = 0; k < kBounds; ++k) {
        x.sender_time.seconds[k] = line(xa.sender_time.seconds[k], x.sender_time.seconds[k]);
      }
    }
    x.rows = n.rows_delivered;
    x.rpcs = n.rpcs;
    x.eos_rpcs = n.eos_rpcs;
    x.bytes_wire = n.bytes_wire;
    x.bytes_uncompressed = n.bytes_uncompressed;
    r.add_exchange(std::move(x));
  }
  return r;
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
  // shortened runs' (the exchanges not shortened simulated in both).
  double whole = 0, kept = 0, shortened = 0;
  for (const Query& q : scenario.queries) {
    plan.shortened.emplace_back();
    for (const Exchange& x : q.exchanges) {
      const double per_channel = calls_per_channel(policy, x);
      const double calls = per_channel * x.senders.instances() * x.receivers.instances();
      const double shortest = std::max(kShortCalls / per_channel, kShortRunCalls / calls);
      plan.shortened.back().push_back(shortest <= kLargestFraction);
      whole += calls * q.repeat;
      if (shortest <= kLargestFraction) {
        fraction = std::max(fraction, shortest);
        shortened += calls * q.repeat;
      } else {
        kept += calls * q.repeat;
      }
    }
  }
  if (fraction == 0 || 2 * kept + 3 * fraction * shortened > kMostWork * whole) return {};
  plan.fraction = fraction;
  return plan;
}

Scenario shortened_scenario(const Scenario& scenario, const Shortening& plan, double fraction) {
  Scenario s = scenario;
  const int multiple = static_cast<int>(std::lround(fraction / plan.fraction));
  for (std::size_t q = 0; q < s.queries.size(); ++q) {
    for (std::size_t x = 0; x < s.queries[q].exchanges.size(); ++x) {
      Exchange& e = s.queries[q].exchanges[x];
      if (plan.shortened[q][x]) e.rows = shortened_rows(e, plan.fraction, multiple);
    }
  }
  return s;
}

std::vector<CountedRun> count_exchange_runs(const Scenario& scenario, const Policy& policy) {
  std::vector<CountedRun> counts;
  ModelContext context(scenario, policy, make_scheduler("calendar"));
  Unheard unheard;
  for (std::size_t q = 0; q < scenario.queries.size(); ++q) {
    const Query& query = scenario.queries[q];
    for (int rep = 0; rep < query.repeat; ++rep) {
      for (std::size_t x = 0; x < query.exchanges.size(); ++x) {
        ExchangeRun run(context, query.exchanges[x], exchange_seed(scenario, q, rep, x), unheard);
        CountedRun counted;
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
  SimulateOptions shorter = options, longer = options;
  shorter.exact = longer.exact = true;
  if (options.progress) {  // the longer run takes about two thirds of the time
    shorter.progress = [&](double done) { options.progress(done / 3); };
    longer.progress = [&](double done) { options.progress((1 + 2 * done) / 3); };
  }
  const EventRun a = simulate_events(shortened_scenario(scenario, plan, plan.fraction), policy, shorter);
  const Scenario longer_scenario = shortened_scenario(scenario, plan, 2 * plan.fraction);
  const EventRun b = simulate_events(longer_scenario, policy, longer);
  if (counters) {
    counters->events = a.counters.events + b.counters.events;
    counters->rpc_records = std::max(a.counters.rpc_records, b.counters.rpc_records);
    counters->max_pending = std::max(a.counters.max_pending, b.counters.max_pending);
  }
  // Along the line through the runs, at the whole rows: of the first shortened exchange, as they all scale alike.
  const std::vector<RunRows> runs = run_rows(scenario, plan);
  double lambda = 0;
  FastForwardNote note;
  note.fraction = plan.fraction;
  for (const RunRows& run : runs) {
    if (!run.shortened) continue;
    if (note.shortened.empty()) lambda = (run.whole - run.longer / 2) / (run.longer / 2);
    if (std::find(note.shortened.begin(), note.shortened.end(), run.name) == note.shortened.end()) {
      note.shortened.push_back(run.name);
    }
  }
  const std::vector<CountedRun> counted = count_exchange_runs(scenario, policy);
  if (const std::string why = why_not_affine(a, b, lambda, runs, counted, count_exchange_runs(longer_scenario, policy));
      !why.empty()) {
    SimulateOptions whole = options;
    whole.exact = true;
    EventRun run = simulate_events(scenario, policy, whole);
    if (counters) {
      counters->events += run.counters.events;
      counters->rpc_records = std::max(counters->rpc_records, run.counters.rpc_records);
      counters->max_pending = std::max(counters->max_pending, run.counters.max_pending);
    }
    run.result.fast_forward.declined = why;
    return std::move(run.result);
  }
  RunResult result = extrapolate(a.result, b, lambda, runs, counted);
  result.fast_forward = std::move(note);
  return result;
}

}  // namespace exsim::sim
