// Simulator speed: simulated TransmitData RPCs per second of wall-clock on one
// core, events per second, and peak memory, which must not grow with the number
// of RPCs; and the event queue alone, the floor under every event the model
// schedules. Usage: exsim_bench_sim [SCENARIO] [--set KEY=VALUE]... [--scheduler NAME]
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "models/error.h"
#include "models/random.h"
#include "models/scenario_loader.h"
#include "sim/engine/calendar_scheduler.h"
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

}  // namespace

int main(int argc, char** argv) {
  std::string path = EXSIM_SOURCE_DIR "/bench/scenarios/rpc-heavy.json";
  std::vector<std::string> overrides;
  exsim::SimulateOptions options;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--set" && i + 1 < argc) {
      overrides.push_back(argv[++i]);
    } else if (arg == "--scheduler" && i + 1 < argc) {
      options.scheduler = argv[++i];
    } else {
      path = arg;
    }
  }
  try {
    const exsim::Scenario scenario = exsim::load_scenario(path, overrides);
    for (const auto& policy : scenario.policies) {
      exsim::SimulationCounters counters;
      const auto start = std::chrono::steady_clock::now();
      const exsim::RunResult result = exsim::simulate(scenario, policy, options, &counters);
      const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      fmt::print("scenario            {}\n", scenario.name);
      fmt::print("policy              {} (scheduler {})\n", policy.name, options.scheduler);
      fmt::print("simulated RPCs      {}\n", result.rpcs);
      fmt::print("simulated time      {:.3f} s\n", result.wall_s);
      fmt::print("events              {}\n", counters.events);
      fmt::print("wall-clock          {:.3f} s\n", seconds);
      fmt::print("RPCs per second     {:.3g}\n", static_cast<double>(result.rpcs) / seconds);
      fmt::print("events per second   {:.3g}\n", static_cast<double>(counters.events) / seconds);
      fmt::print("RPC records         {}\n", counters.rpc_records);
      fmt::print("peak RSS            {:.1f} MiB\n", peak_rss_mib());
      // What the event queue alone allows: the ceiling with no model work at all.
      const double queue_ns = queue_ns_per_event(counters.max_pending);
      const double events_per_rpc = static_cast<double>(counters.events) / static_cast<double>(result.rpcs);
      fmt::print("largest queue       {} events\n", counters.max_pending);
      fmt::print("queue alone         {:.1f} ns per event: at most {:.3g} RPCs per second at {:.2f} events per RPC\n",
                 queue_ns, 1e9 / (queue_ns * events_per_rpc), events_per_rpc);
    }
  } catch (const exsim::ScenarioError& e) {
    fmt::print(stderr, "{}\n", e.what());
    return 2;
  }
  return 0;
}
