#include "transport/testbed/busy_cores.h"

#include <pthread.h>
#include <sched.h>

#include <cstring>
#include <future>

#include <fmt/format.h>

namespace exsim::transport {
namespace {

// Lowers the calling thread to SCHED_IDLE on `cpu` alone: "" when done, else why not.
std::string become_idle_filler(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  if (const int e = pthread_setaffinity_np(pthread_self(), sizeof set, &set); e != 0) {
    return fmt::format("CPU {}: sched_setaffinity: {}", cpu, std::strerror(e));
  }
  sched_param none{};
  none.sched_priority = 0;
  if (const int e = pthread_setschedparam(pthread_self(), SCHED_IDLE, &none); e != 0) {
    return fmt::format("CPU {}: SCHED_IDLE: {}", cpu, std::strerror(e));
  }
  return "";
}

}  // namespace

BusyCores::BusyCores(const std::vector<int>& cpus) {
  for (int cpu : cpus) {
    std::promise<std::string> began;
    std::future<std::string> why = began.get_future();
    threads_.emplace_back([this, cpu, began = std::move(began)]() mutable {
      const std::string failed = become_idle_filler(cpu);
      began.set_value(failed);
      if (!failed.empty()) return;
      // No pause instruction: a hypervisor takes a vCPU that loops on it for
      // one waiting on a lock and gives its time away, as good as a halt.
      while (!stop_.load(std::memory_order_relaxed)) {
      }
    });
    std::string failed = why.get();
    clockid_t clock{};
    if (failed.empty() && pthread_getcpuclockid(threads_.back().native_handle(), &clock) == 0) clocks_.push_back(clock);
    if (!failed.empty() && why_not_.empty()) why_not_ = std::move(failed);
  }
}

BusyCores::~BusyCores() {
  stop_.store(true, std::memory_order_relaxed);
  for (auto& t : threads_) t.join();
}

double BusyCores::cpu_seconds() const {
  double total = 0;
  for (clockid_t clock : clocks_) {
    timespec spent{};
    if (clock_gettime(clock, &spent) != 0) continue;
    total += static_cast<double>(spent.tv_sec) + static_cast<double>(spent.tv_nsec) * 1e-9;
  }
  return total;
}

}  // namespace exsim::transport
