// Simulator speed: simulated TransmitData RPCs per second of wall-clock on one
// core, events per second, and peak memory, which must not grow with the number
// of RPCs; and the event queue alone, the floor under every event the model
// schedules. Usage: exsim_bench_sim [SCENARIO] [--set KEY=VALUE]... [--scheduler NAME]
// [--repeat N] [--count]. With --repeat, each policy is simulated N times (the results
// must not change) and the spread of the wall-clock times is printed: the
// machines are shared and noisy, and one run says little. With --count, each
// policy's exchanges are counted instead (sim/fast_forward.h,
// count_exchange_runs: every call planned, no time simulated), the part of a
// fast-forwarded run that grows with the whole rows.
#include <sys/resource.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "models/base/error.h"
#include "models/base/random.h"
#include "models/scenario/scenario_loader.h"
#include "sim/engine/calendar_scheduler.h"
#include "sim/fast_forward.h"
#include "sim/simulate.h"

namespace {

double peak_rss_mib() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;  // ru_maxrss is in KiB on Linux
}

// Nanoseconds per pop and push of the default event queue holding `pending`
// events with times drawn like a run's (microseconds to a millisecond ahead).
double queue_ns_per_event(std::size_t pending) {
  exsim::sim::CalendarScheduler queue;
  exsim::Random random(1);
  std::uint64_t seq = 0;
  for (std::size_t i = 0; i < pending; ++i) {
    queue.push_inline({static_cast<exsim::sim::SimTime>(random.below(1000000)), seq++, nullptr, 0});
  }
  constexpr int kEvents = 20000000;
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < kEvents; ++i) {
    const exsim::sim::Event event = queue.pop_inline();
    queue.push_inline({event.time + 1000 + static_cast<exsim::sim::SimTime>(random.below(1000000)), seq++, nullptr, 0});
  }
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() / kEvents * 1e9;
}

// The processor, as /proc/cpuinfo names it: figures from another machine differ.
std::string machine() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line, model, family, mhz;
  auto value = [&](const std::string& key, std::string& out) {
    if (out.empty() && line.rfind(key, 0) == 0 && line.find(':') != std::string::npos) {
      out = line.substr(line.find(':') + 2);
    }
  };
  while (std::getline(cpuinfo, line)) {
    value("model name", model);
    value("cpu family", family);
    value("cpu MHz", mhz);
  }
  if (model.empty()) return "unknown";
  return fmt::format("{} (family {}, {} MHz)", model, family.empty() ? "?" : family, mhz.empty() ? "?" : mhz);
}

// Each policy's count of every exchange run: its calls planned without time.
int print_counts(const exsim::Scenario& scenario, int repeat) {
  fmt::print("scenario            {}\n", scenario.name);
  for (const auto& policy : scenario.policies) {
    std::vector<double> seconds;
    double calls = 0;
    for (int run = 0; run < repeat; ++run) {
      const auto start = std::chrono::steady_clock::now();
      const std::vector<exsim::sim::CountedRun> counted = exsim::sim::count_exchange_runs(scenario, policy);
      seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
      double these = 0;
      for (const auto& c : counted) these += static_cast<double>(c.counts.rpcs + c.counts.eos_rpcs);
      if (run > 0 && these != calls) {
        fmt::print(stderr, "count {} of policy {} gave other calls than the first: not deterministic\n", run + 1,
                   policy.name);
        return 1;
      }
      calls = these;
    }
    std::sort(seconds.begin(), seconds.end());
    const double median = seconds[seconds.size() / 2];
    fmt::print("policy {:<12} counted {:.0f} calls in {:.3f} s (median of {}, {:.3f} to {:.3f} s): {:.3g} calls per second\n",
               policy.name, calls, median, repeat, seconds.front(), seconds.back(), calls / median);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::string path = EXSIM_SOURCE_DIR "/bench/scenarios/rpc-heavy.json";
  std::vector<std::string> overrides;
  exsim::SimulateOptions options;
  int repeat = 1;
  bool count = false;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--repeat" && i + 1 < argc) {
      const std::string_view text = argv[++i];
      const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), repeat);
      if (error != std::errc{} || end != text.data() + text.size() || repeat < 1 || repeat > 100) {
        fmt::print(stderr, "--repeat: expected a count from 1 to 100, got '{}'\n", argv[i]);
        return 2;
      }
    } else if (arg == "--count") {
      count = true;
    } else if (arg == "--set" && i + 1 < argc) {
      overrides.push_back(argv[++i]);
    } else if (arg == "--scheduler" && i + 1 < argc) {
      options.scheduler = argv[++i];
    } else {
      path = arg;
    }
  }
  try {
    const exsim::Scenario scenario = exsim::load_scenario(path, overrides);
    fmt::print("machine             {}\n", machine());
    if (count) return print_counts(scenario, repeat);
    for (const auto& policy : scenario.policies) {
      exsim::SimulationCounters counters;
      exsim::RunResult result;
      std::vector<double> seconds;
      for (int run = 0; run < repeat; ++run) {
        exsim::SimulationCounters these;
        const auto start = std::chrono::steady_clock::now();
        exsim::RunResult again = exsim::simulate(scenario, policy, options, &these);
        seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
        if (run > 0 && (again.rpcs != result.rpcs || again.wall_s != result.wall_s || these.events != counters.events)) {
          fmt::print(stderr, "run {} of policy {} gave other results than the first: the simulator is not deterministic\n",
                     run + 1, policy.name);
          return 1;
        }
        result = std::move(again);
        counters = these;
      }
      std::sort(seconds.begin(), seconds.end());
      const double median = seconds[seconds.size() / 2];
      const auto rpcs = static_cast<double>(result.rpcs);
      fmt::print("scenario            {}\n", scenario.name);
      fmt::print("policy              {} (scheduler {})\n", policy.name, options.scheduler);
      fmt::print("simulated RPCs      {}\n", result.rpcs);
      fmt::print("simulated time      {:.3f} s\n", result.wall_s);
      fmt::print("events              {}\n", counters.events);
      if (repeat == 1) {
        fmt::print("wall-clock          {:.3f} s\n", median);
        fmt::print("RPCs per second     {:.3g}\n", rpcs / median);
      } else {
        fmt::print("wall-clock          {:.3f} s median of {} runs ({:.3f} to {:.3f} s)\n", median, repeat,
                   seconds.front(), seconds.back());
        fmt::print("RPCs per second     {:.3g} median ({:.3g} to {:.3g})\n", rpcs / median, rpcs / seconds.back(),
                   rpcs / seconds.front());
      }
      fmt::print("events per second   {:.3g}\n", static_cast<double>(counters.events) / median);
      fmt::print("RPC records         {}\n", counters.rpc_records);
      fmt::print("peak RSS            {:.1f} MiB\n", peak_rss_mib());
      // What the event queue alone allows: the ceiling with no model work at all.
      const double queue_ns = queue_ns_per_event(counters.max_pending);
      const double events_per_rpc = static_cast<double>(counters.events) / static_cast<double>(result.rpcs);
      fmt::print("largest queue       {} events\n", counters.max_pending);
      fmt::print("queue alone         {:.1f} ns per event: at most {:.3g} RPCs per second at {:.2f} events per RPC\n",
                 queue_ns, 1e9 / (queue_ns * events_per_rpc), events_per_rpc);
    }
  } catch (const exsim::InputError& e) {
    fmt::print(stderr, "{}\n", e.what());
    return 2;
  }
  return 0;
}
