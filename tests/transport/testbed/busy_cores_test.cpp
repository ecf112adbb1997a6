#include "transport/testbed/busy_cores.h"

#include <pthread.h>
#include <sched.h>

#include <chrono>
#include <thread>

#include <doctest/doctest.h>

#include "transport/net/thread_cpu.h"
#include "transport/testbed/cpu_set.h"

namespace exsim::transport {
namespace {

// Runs the calling thread on `cpu` alone until it ends.
class PinnedHere {
 public:
  explicit PinnedHere(int cpu) {
    pthread_getaffinity_np(pthread_self(), sizeof before_, &before_);
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    pthread_setaffinity_np(pthread_self(), sizeof one, &one);
  }
  ~PinnedHere() { pthread_setaffinity_np(pthread_self(), sizeof before_, &before_); }

 private:
  cpu_set_t before_{};
};

TEST_CASE("BusyCores fills an idle CPU's gaps and gives way to any thread that wants it") {
  const int cpu = allowed_cpus().back();
  BusyCores cores({cpu});
  REQUIRE_MESSAGE(cores.held(), cores.why_not());

  // Nothing of ours on the CPU: the filler runs (unless another process held
  // the CPU the whole time, which 2 s makes unlikely on any machine).
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  while (cores.cpu_seconds() < 0.02 && std::chrono::steady_clock::now() < give_up) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  CHECK(cores.cpu_seconds() >= 0.02);

  // A normal thread busy on the same CPU: the filler takes next to nothing of
  // it (SCHED_IDLE's weight is 3 against 1024, about 0.3%).
  const PinnedHere here(cpu);
  const double filler_before = cores.cpu_seconds();
  const std::int64_t ours_before = thread_cpu_ns();
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(300);
  volatile std::uint64_t sink = 0;
  while (std::chrono::steady_clock::now() < until) sink = sink + 1;
  const double ours = static_cast<double>(thread_cpu_ns() - ours_before) * 1e-9;
  const double filler = cores.cpu_seconds() - filler_before;
  CHECK(ours > 0.05);
  CHECK(filler < 0.05 * (ours + filler));
}

TEST_CASE("BusyCores says which CPU it could not hold, and holds none of it") {
  const BusyCores cores({1000});
  CHECK_FALSE(cores.held());
  CHECK(cores.why_not().find("CPU 1000") != std::string::npos);
  CHECK(cores.cpu_seconds() == 0);
}

}  // namespace
}  // namespace exsim::transport
