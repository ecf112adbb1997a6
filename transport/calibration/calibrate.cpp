#include "transport/calibration/calibrate.h"

#include <sched.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <thread>
#include <tuple>

#include <fmt/format.h>

#include "models/scenario/cost_figures.h"
#include "transport/calibration/benchmarks.h"
#include "transport/calibration/cache_benchmarks.h"
#include "transport/testbed/call_probe.h"
#include "transport/testbed/cpu_set.h"
#include "transport/testbed/probe_limits.h"
#include "transport/testbed/speed_probe.h"

namespace exsim::transport {
namespace {

double median_of(std::vector<double> v) { return spread_of(std::move(v)).median; }

// The first figure outside its bounds, as a sentence; "" if none.
std::string out_of_bounds(const std::map<std::string, double>& figures) {
  for (const auto& [key, value] : figures) {
    double min = 0, max = 0;
    if (figure_bounds(key, min, max) && !(value >= min && value <= max)) {
      return fmt::format("{} = {:.4g} is outside its physical bounds ({:.4g} to {:.4g})", key, value, min, max);
    }
  }
  return "";
}

}  // namespace

bool figure_bounds(const std::string& key, double& min, double& max) {
  const CostFigure* figure = find_cost_figure(key);
  if (figure == nullptr || figure->summary == CostFigure::Summary::kNotMeasured) return false;
  min = figure->least_measurable;
  max = figure->most_measurable;
  return true;
}

int available_cores() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) == 0) return std::max(1, CPU_COUNT(&set));
  return std::max(1u, std::thread::hardware_concurrency());
}

double core_cache_bytes() {
  int cpu = 0;
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) == 0) {
    while (cpu < CPU_SETSIZE - 1 && !CPU_ISSET(cpu, &set)) ++cpu;
  }
  const auto line = [](const std::string& path) {
    std::ifstream in(path);
    std::string text;
    std::getline(in, text);
    return text;
  };
  for (int index = 0; index < 16; ++index) {
    const std::string dir = fmt::format("/sys/devices/system/cpu/cpu{}/cache/index{}/", cpu, index);
    const std::string level = line(dir + "level");
    if (level.empty()) break;
    const std::string type = line(dir + "type");
    if (level != "2" || (type != "Data" && type != "Unified")) continue;
    // "2048K", "1M", or bytes.
    const std::string size = line(dir + "size");
    std::size_t used = 0;
    double value = 0;
    try {
      value = std::stod(size, &used);
    } catch (const std::exception&) {
      return 0;
    }
    const std::string unit = size.substr(used);
    if (unit == "K") value *= 1024;
    if (unit == "M") value *= 1024 * 1024;
    return value;
  }
  return 0;
}

void CalibrationSamples::append(const CalibrationSamples& other) {
  for (const auto& [key, values] : other.figures) figures[key].insert(figures[key].end(), values.begin(), values.end());
  probes_us.insert(probes_us.end(), other.probes_us.begin(), other.probes_us.end());
  call_probes_us.insert(call_probes_us.end(), other.call_probes_us.begin(), other.call_probes_us.end());
  cache_points.insert(cache_points.end(), other.cache_points.begin(), other.cache_points.end());
  steady += other.steady;
  unsteady += other.unsteady;
  unsteady_speed += other.unsteady_speed;
  unsteady_calls += other.unsteady_calls;
  unsteady_others += other.unsteady_others;
  out_of_bounds += other.out_of_bounds;
  wanted += other.wanted;
}

CalibrationSamples measure_costs(const CalibrationOptions& options) {
  const int wanted = std::max(1, options.repetitions);
  auto say = [&](const std::string& line) {
    if (options.progress) options.progress(line);
  };
  // Repetitions with the speed probes and the call probes around them (a burst
  // that makes calls between processes dearer moves the per-call figures and,
  // through them, transfer_bytes_per_s: three calibrations in a row gave 3.9, 4.8
  // and 6.1 GB/s, their rpc_cpu_us 76, 64 and 54 us). Those set aside are made
  // again, up to as many more as were asked for.
  struct Repetition {
    std::map<std::string, double> figures;
    std::vector<CacheMeasure> cache_points;
    double before_us, after_us;
    double calls_before_us, calls_after_us;
    double others;  // share of our CPUs other processes took meanwhile
  };
  CallProbe calls;
  std::vector<Repetition> kept;
  CalibrationSamples samples;
  samples.wanted = wanted;
  std::string last_bounds_error;
  // Against the usual speed and call cost: the medians over the repetitions kept.
  struct Usual {
    double speed_us, calls_us;
  };
  // A repetition whose calls were dearer throughout (calls_factor > 1) is kept
  // with its per-call figures moved back by it, as a validation's run's costs
  // are moved to its probes.
  auto calls_of = [](const Repetition& r, const Usual& usual) {
    return calls_factor(r.calls_before_us, r.calls_after_us, usual.calls_us);
  };
  // Why a repetition cannot be kept, if it cannot.
  enum class Unsteady { kNo, kSpeed, kCalls, kOthers };
  auto unsteady_for = [&](const Repetition& r, const Usual& usual) {
    if (speed_deviation(r.before_us, r.after_us, usual.speed_us) > kSteadySpeed) return Unsteady::kSpeed;
    if (calls_of(r, usual) == 0) return Unsteady::kCalls;
    return r.others > kOthersShare ? Unsteady::kOthers : Unsteady::kNo;
  };
  auto steady = [&](const Repetition& r, const Usual& usual) { return unsteady_for(r, usual) == Unsteady::kNo; };
  // A repetition's figures and call probes, moved to the usual call cost, into the samples.
  auto take = [&](const Repetition& r, double factor) {
    for (const auto& [key, value] : r.figures) {
      const CostFigure* figure = find_cost_figure(key);
      const bool moved = factor != 1 && figure != nullptr && moves_with_calls(*figure);
      samples.figures[key].push_back(moved ? at_factor(*figure, value, 1 / factor) : value);
    }
    samples.probes_us.insert(samples.probes_us.end(), {r.before_us, r.after_us});
    samples.call_probes_us.insert(samples.call_probes_us.end(), {r.calls_before_us / factor, r.calls_after_us / factor});
    samples.cache_points.push_back(r.cache_points);
  };
  auto usual = [&] {
    std::vector<double> probes, call_probes;
    for (const auto& r : kept) {
      probes.insert(probes.end(), {r.before_us, r.after_us});
      call_probes.insert(call_probes.end(), {r.calls_before_us, r.calls_after_us});
    }
    return Usual{median_of(probes), median_of(call_probes)};
  };
  auto steady_count = [&] {
    if (kept.empty()) return 0;
    const Usual u = usual();
    return static_cast<int>(std::count_if(kept.begin(), kept.end(), [&](const Repetition& r) { return steady(r, u); }));
  };
  for (int attempt = 0; attempt < 2 * wanted && steady_count() < wanted; ++attempt) {
    const std::uint64_t seed = options.seed + static_cast<std::uint64_t>(attempt);
    const auto step = [&](const std::string& what) {
      say(fmt::format("repetition {}/{}: {}", std::min(attempt + 1, wanted), wanted, what));
    };
    Repetition r;
    const CoreShare share;
    r.before_us = probe_speed_us();
    r.calls_before_us = calls.probe_us();
    double agents_cpu_s = 0;
    r.figures = measure_figures(options.scale, seed, step, agents_cpu_s, r.cache_points);
    r.calls_after_us = calls.probe_us();
    r.after_us = probe_speed_us();
    // Another process on our CPUs takes from the benchmarks what a probe does not show.
    r.others = share.others_share(agents_cpu_s);
    if (const std::string why = out_of_bounds(r.figures); !why.empty()) {
      ++samples.out_of_bounds;
      last_bounds_error = why;
      step(fmt::format("{}: measured again", why));
      continue;
    }
    kept.push_back(std::move(r));
  }
  if (kept.empty()) {
    throw CalibrationError(fmt::format("calibration: no repetition measured every figure within its bounds in {} "
                                       "tries; the last: {}",
                                       2 * wanted, last_bounds_error));
  }
  const Usual u = usual();
  for (const auto& r : kept) {
    if (const Unsteady why = unsteady_for(r, u); why != Unsteady::kNo) {
      ++samples.unsteady;
      ++(why == Unsteady::kSpeed   ? samples.unsteady_speed
         : why == Unsteady::kCalls ? samples.unsteady_calls
                                   : samples.unsteady_others);
      continue;
    }
    take(r, calls_of(r, u));
    ++samples.steady;
  }
  if (samples.figures.empty()) {
    // Not one repetition at the usual speed: keep them all, unmoved, flagged as noisy.
    for (const auto& r : kept) take(r, 1);
  }
  return samples;
}

Calibration summarize_costs(const CalibrationSamples& samples) {
  Calibration result;
  for (const auto& [key, list] : samples.figures) result.spread[key] = spread_of(list);
  CostProfile& p = result.profile;
  for (const CostFigure& figure : cost_figures()) {
    if (figure.summary == CostFigure::Summary::kNotMeasured) continue;
    const FigureSpread& spread = result.spread.at(std::string(figure.key));
    figure.set(p, figure.summary == CostFigure::Summary::kLeast ? spread.min : spread.median);
  }
  // The cache's figures trade against one another (the shared cache's size
  // against its miss costs): fitted once to each exchange's median over the
  // repetitions, they are one consistent set; the repetitions' own fits give
  // their spread, which is widened to hold the value kept. A set with a figure
  // outside its physical bounds is not kept, whole: the medians stay.
  const auto fitted = samples.cache_points.empty()
                          ? std::map<std::string, double>{}
                          : cache_figures_of(median_measures(samples.cache_points), core_cache_bytes());
  if (out_of_bounds(fitted).empty()) {
    for (const auto& [key, value] : fitted) {
      const CostFigure* figure = find_cost_figure(key);
      auto spread = result.spread.find(key);
      if (figure == nullptr || spread == result.spread.end()) continue;
      figure->set(p, value);
      FigureSpread& s = spread->second;
      s.median = value;
      s.min = std::min(s.min, value);
      s.max = std::max(s.max, value);
    }
  }
  // Calls in flight together never cost more each than one alone.
  p.rpc_cpu_busy_us = std::min(p.rpc_cpu_busy_us, p.rpc_cpu_us);
  // The medians come from different repetitions: bound them again.
  p.rpc_cpu_queued_us = bounded_queued_call_us(p.rpc_cpu_queued_us, p.rpc_cpu_busy_us, p.rpc_cpu_us);
  p.cores = available_cores();
  p.core_cache_bytes = core_cache_bytes();
  // The real exchange reads and decodes every call of a host on the host's one
  // reactor thread: one service thread a host, as the model has them.
  p.service_threads = 1;
  p.source = "exsim calibrate";
  result.sources = figure_sources();

  if (!samples.probes_us.empty()) {
    const FigureSpread speed = spread_of(samples.probes_us);
    result.speed_us = speed.median;
    result.speed_spread = speed.median > 0 ? (speed.max - speed.min) / speed.median : 0;
  }
  for (const auto& [key, s] : result.spread) {
    const double range = s.median != 0 ? (s.max - s.min) / std::abs(s.median) : 0;
    if (range > kUnsteadyFigure) {
      result.warnings.push_back(fmt::format("{} varied by {:.0f}% between repetitions (from {:.4g} to {:.4g}), more "
                                            "than the {:.0f}% a steady machine gives",
                                            key, 100 * range, s.min, s.max, 100 * kUnsteadyFigure));
    }
  }
  if (samples.out_of_bounds > 0) {
    result.warnings.push_back(fmt::format("{} repetition(s) measured a figure outside its physical bounds and were "
                                          "made again",
                                          samples.out_of_bounds));
  }
  if (samples.unsteady > 0) {
    result.warnings.push_back(fmt::format(
        "{} repetition(s) set aside: {} while the machine's speed changed by more than {:.0f}%, {} while calls "
        "between processes cost more than {:.0f}% above their usual and changed during it or cost more than {:.0f}% "
        "above it throughout, {} while other processes took more than {:.0f}% of its CPU",
        samples.unsteady, samples.unsteady_speed, 100 * kSteadySpeed, samples.unsteady_calls, 100 * kSteadyCalls,
        100 * kScalableCallSlowdown, samples.unsteady_others, 100 * kOthersShare));
  }
  if (samples.steady < steady_repetitions_needed(samples.wanted)) {
    result.too_noisy = true;
    result.warnings.push_back(fmt::format("only {} of {} repetitions ran at a steady speed, fewer than the {} needed: "
                                          "the machine is too busy or too noisy for these figures to be trusted",
                                          samples.steady, samples.wanted, steady_repetitions_needed(samples.wanted)));
  }
  return result;
}

}  // namespace exsim::transport
