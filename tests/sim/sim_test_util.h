// Event handlers for engine and resource tests.
#ifndef EXSIM_TESTS_SIM_SIM_TEST_UTIL_H_
#define EXSIM_TESTS_SIM_SIM_TEST_UTIL_H_

#include <functional>
#include <map>
#include <utility>
#include <vector>

#include "sim/engine/simulator.h"

namespace exsim::sim::test {

// Records when each event ran: in order (`seen`) and by tag (`at`).
struct Recorder final : EventHandler {
  explicit Recorder(Simulator& s) : simulator(s) {}
  void on_event(std::uint64_t tag) override {
    seen.emplace_back(simulator.now(), tag);
    at[tag] = simulator.now();
  }
  Simulator& simulator;
  std::vector<std::pair<SimTime, std::uint64_t>> seen;
  std::map<std::uint64_t, SimTime> at;
};

// Runs a function with the event's tag: actions at chosen times.
struct Action final : EventHandler {
  explicit Action(std::function<void(std::uint64_t)> f) : run(std::move(f)) {}
  void on_event(std::uint64_t tag) override { run(tag); }
  std::function<void(std::uint64_t)> run;
};

}  // namespace exsim::sim::test

#endif  // EXSIM_TESTS_SIM_SIM_TEST_UTIL_H_
