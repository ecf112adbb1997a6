#include "sim/run_extension.h"

#include <algorithm>
#include <array>
#include <cmath>

#include <fmt/format.h>

namespace exsim::sim {
namespace {

// The CPU stages a sender spends as it plans its rows, and those spent on
// each call as it goes and arrives. Stretched, compression is counted
// (CountedRun::compress_s) rather than extended.
constexpr std::array kRowStages = {&CpuByStage::produce, &CpuByStage::serialize, &CpuByStage::compress};
constexpr std::array kStretchedRowStages = {&CpuByStage::produce, &CpuByStage::serialize};
constexpr std::array kCallStages = {&CpuByStage::call, &CpuByStage::rpc, &CpuByStage::decompress,
                                    &CpuByStage::deserialize, &CpuByStage::consume};

std::string why_receivers_grow(Bytes before, Bytes after) {
  if (static_cast<double>(after - before) <= kReceiverPeakDrift * static_cast<double>(before)) return "";
  return fmt::format("the receivers' memory peaks grow with the rows ({} B, then {} B)", before, after);
}

// The senders' own times (blocked, by bound) extended by their steady middle's
// rate: each marked at a moment none of its time is unattributed, they carry
// no difference of two runs' ends.
void extend_sender_times(ExchangeResult& x, const SenderWindow& middle, double rows_more) {
  if (middle.rows <= 0) return;
  const double more = rows_more / static_cast<double>(middle.rows) * 1e-9;
  x.sender_blocked_s += static_cast<double>(middle.blocked_ns) * more;
  for (std::size_t k = 0; k < kBounds; ++k) x.sender_time.seconds[k] += static_cast<double>(middle.time_ns[k]) * more;
}

// A shortened run's calls and bytes as counted (the others' are the run's own);
// then the per-call means from their sums, over the calls.
void take_counts(ExchangeResult& x, const RunRows& run, double network_ns, double receiver_ns) {
  if (run.shortened) {
    const ExchangeStats& n = run.counted.counts;
    x.rows = n.rows_delivered;
    x.rpcs = n.rpcs;
    x.eos_rpcs = n.eos_rpcs;
    x.bytes_wire = n.bytes_wire;
    x.bytes_uncompressed = n.bytes_uncompressed;
  }
  if (x.rpcs == 0) return;
  if (x.rpc_network_us_mean >= 0) x.rpc_network_us_mean = network_ns * 1e-3 / static_cast<double>(x.rpcs);
  if (x.rpc_receiver_us_mean >= 0) x.rpc_receiver_us_mean = receiver_ns * 1e-3 / static_cast<double>(x.rpcs);
}

double sum_ns(double mean_us, std::int64_t rpcs) { return mean_us < 0 ? 0 : mean_us * 1e3 * static_cast<double>(rpcs); }

// Where the whole rows lie on the line through the runs of half and all the
// shortened rows: 0 at the shorter run, 1 at the other (they all scale alike).
double line_position(const std::vector<RunRows>& runs) {
  for (const RunRows& r : runs) {
    if (r.shortened) return (r.whole - r.simulated / 2) / (r.simulated / 2);
  }
  return 0;
}

// The run's exchanges replaced by `exchanges`, its totals added up again.
void replace_exchanges(RunResult& r, std::vector<ExchangeResult> exchanges) {
  r.exchanges.clear();
  r.rpcs = 0;
  r.bytes_wire = r.bytes_uncompressed = 0;
  for (auto& x : exchanges) r.add_exchange(std::move(x));
}

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

// Why exchange run i cannot be stretched, or "".
NotStretched why_not_stretched(const EventRun& run, const std::vector<RunRows>& runs, std::size_t i) {
  const auto& [from, to] = run.tracks[i].marks;
  if (from.at < 0 || to.at < 0 || to.rows <= from.rows) {
    return {fmt::format("{} has no middle to stretch", runs[i].name), i, true};
  }
  for (std::size_t j = 0; j < runs.size(); ++j) {
    const EventRun::Track& other = run.tracks[j];
    if (j != i && other.start < to.at && other.end > from.at) {
      return {fmt::format("{} runs beside {} in its middle", runs[i].name, runs[j].name), i};
    }
  }
  // Paces apart over a short middle may be the routing's noise, which a longer one averages out.
  const SenderWindow& middle = run.tracks[i].middle;
  if (middle.senders == 0 || middle.slowest_ns_per_row > (1 + kPaceSpread) * middle.fastest_ns_per_row) {
    return {fmt::format("{}'s senders go at different paces through its middle", runs[i].name), i, true};
  }
  if (from.rooms != to.rooms || from.outbound != to.outbound) {
    return {fmt::format("{}'s sender buffers still grow in its middle", runs[i].name), i};
  }
  if (from.sender_peaks != to.sender_peaks) {
    return {fmt::format("the senders' memory peaks grow in {}'s middle", runs[i].name), i};
  }
  if (auto why = why_receivers_grow(from.receiver_peaks, to.receiver_peaks); !why.empty()) return {why, i};
  return {why_buffers_grow_later(runs[i]), i};
}

}  // namespace

// A sender's footprint is its buffers' rooms and outbound buffers, which only
// grow: the batches planned to the whole run's end must grow them no further
// than the shortened run's did.
std::string why_buffers_grow_later(const RunRows& run) {
  if (run.counted.rooms == run.counted_simulated.rooms) return "";
  return fmt::format("{}'s sender buffers grow after the shortened run's rows, for a batch larger than any in it",
                     run.name);
}

NotStretched why_not_stretched(const EventRun& run, const std::vector<RunRows>& runs) {
  for (std::size_t i = 0; i < runs.size(); ++i) {
    if (!runs[i].shortened) continue;
    if (NotStretched no = why_not_stretched(run, runs, i); !no.why.empty()) return no;
  }
  return {};
}

RunResult stretched(const EventRun& run, const std::vector<RunRows>& runs) {
  RunResult r = run.result;
  std::vector<ExchangeResult> exchanges = r.exchanges;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    ExchangeResult& x = exchanges[i];
    double network = sum_ns(x.rpc_network_us_mean, x.rpcs), receiver = sum_ns(x.rpc_receiver_us_mean, x.rpcs);
    if (runs[i].shortened) {
      // The middle again, in proportion to the rows left out.
      // The time at the senders' pace (each sender takes an equal share of
      // the rows); the CPU planned with the rows by the rows left out, what
      // goes with the calls by the calls left out.
      const auto& [from, to] = run.tracks[i].marks;
      const SenderWindow& middle = run.tracks[i].middle;
      const double rows_more = runs[i].whole - runs[i].simulated;
      const double by_rows = rows_more / static_cast<double>(to.rows - from.rows);
      const double k = static_cast<double>(runs[i].counted.counts.rpcs - x.rpcs) /
                       static_cast<double>(std::max<std::int64_t>(1, to.rpcs - from.rpcs));
      const double more_s = rows_more / middle.senders * middle.mean_ns_per_row() * 1e-9;
      r.wall_s += more_s;
      r.queries[runs[i].query].wall_s += more_s;
      x.wall_s += more_s;
      for (auto stage : kStretchedRowStages) r.cpu_s.*stage += (to.cpu.*stage - from.cpu.*stage) * by_rows;
      r.cpu_s.compress += runs[i].counted.compress_s - runs[i].counted_simulated.compress_s;
      for (auto stage : kCallStages) r.cpu_s.*stage += (to.cpu.*stage - from.cpu.*stage) * k;
      network += static_cast<double>(to.network_ns - from.network_ns) * k;
      receiver += static_cast<double>(to.receiver_ns - from.receiver_ns) * k;
      x.deferred_rpcs += std::llround(static_cast<double>(to.deferred_rpcs - from.deferred_rpcs) * k);
      extend_sender_times(x, run.tracks[i].middle, rows_more);
    }
    take_counts(x, runs[i], network, receiver);
  }
  replace_exchanges(r, std::move(exchanges));
  return r;
}

std::string why_not_along_line(const EventRun& shorter, const EventRun& run, const std::vector<RunRows>& runs) {
  const EventRun& a = shorter;
  const EventRun& b = run;
  const double lambda = line_position(runs);
  const auto line = [lambda](double x, double y) { return x + (y - x) * lambda; };
  std::vector<double> start_a, end_a, start_b, end_b, start_x, end_x;
  for (std::size_t i = 0; i < a.tracks.size(); ++i) {
    start_a.push_back(static_cast<double>(a.tracks[i].start));
    end_a.push_back(static_cast<double>(a.tracks[i].end));
    start_b.push_back(static_cast<double>(b.tracks[i].start));
    end_b.push_back(static_cast<double>(b.tracks[i].end));
    start_x.push_back(line(start_a.back(), start_b.back()));
    end_x.push_back(line(end_a.back(), end_b.back()));
  }
  const std::vector<std::size_t> order = event_order(start_a, end_a);
  if (event_order(start_b, end_b) != order || event_order(start_x, end_x) != order) {
    return "the exchanges start and end in another order when they run longer";
  }
  for (std::size_t i = 0; i < runs.size(); ++i) {
    if (!runs[i].shortened) continue;
    if (a.tracks[i].rooms != b.tracks[i].rooms || a.tracks[i].outbound != b.tracks[i].outbound) {
      return fmt::format("{}'s sender buffers still grow between the shortened runs", runs[i].name);
    }
    if (auto why = why_buffers_grow_later(runs[i]); !why.empty()) return why;
  }
  Bytes receivers_a = 0, receivers_b = 0;
  for (std::size_t h = 0; h < a.result.hosts.size(); ++h) {
    if (a.result.hosts[h].sender_peak_bytes != b.result.hosts[h].sender_peak_bytes) {
      return fmt::format("{}'s sender memory peak grows with the rows", a.result.hosts[h].name);
    }
    receivers_a += a.result.hosts[h].receiver_peak_bytes;
    receivers_b += b.result.hosts[h].receiver_peak_bytes;
  }
  return why_receivers_grow(receivers_a, receivers_b);
}

RunResult along_line(const EventRun& shorter, const EventRun& run, const std::vector<RunRows>& runs) {
  const RunResult& a = shorter.result;
  const RunResult& b = run.result;
  const double lambda = line_position(runs);
  const auto line = [lambda](double x, double y) { return x + (y - x) * lambda; };
  RunResult r = b;
  r.wall_s = line(a.wall_s, b.wall_s);
  for (auto stage : kRowStages) r.cpu_s.*stage = line(a.cpu_s.*stage, b.cpu_s.*stage);
  for (auto stage : kCallStages) r.cpu_s.*stage = line(a.cpu_s.*stage, b.cpu_s.*stage);
  for (std::size_t q = 0; q < r.queries.size(); ++q) r.queries[q].wall_s = line(a.queries[q].wall_s, b.queries[q].wall_s);
  std::vector<ExchangeResult> exchanges = b.exchanges;
  for (std::size_t i = 0; i < exchanges.size(); ++i) {
    const ExchangeResult& xa = a.exchanges[i];
    ExchangeResult& x = exchanges[i];
    x.wall_s = line(xa.wall_s, x.wall_s);
    x.deferred_rpcs = std::llround(line(static_cast<double>(xa.deferred_rpcs), static_cast<double>(x.deferred_rpcs)));
    const double network = line(sum_ns(xa.rpc_network_us_mean, xa.rpcs), sum_ns(x.rpc_network_us_mean, x.rpcs));
    const double receiver = line(sum_ns(xa.rpc_receiver_us_mean, xa.rpcs), sum_ns(x.rpc_receiver_us_mean, x.rpcs));
    if (runs[i].shortened) {
      extend_sender_times(x, run.tracks[i].middle, runs[i].whole - runs[i].simulated);
    } else {
      x.sender_blocked_s = line(xa.sender_blocked_s, x.sender_blocked_s);
      for (std::size_t k = 0; k < kBounds; ++k) x.sender_time.seconds[k] = line(xa.sender_time.seconds[k], x.sender_time.seconds[k]);
    }
    take_counts(x, runs[i], network, receiver);
  }
  replace_exchanges(r, std::move(exchanges));
  return r;
}

}  // namespace exsim::sim
