#include "transport/testbed/cpu_set.h"

#include <sched.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <sstream>
#include <thread>
#include <utility>
#include <cerrno>
#include <cstring>
#include <stdexcept>

#include <fmt/format.h>

#include "models/base/error.h"
#include "transport/testbed/speed_probe.h"

namespace exsim::transport {
namespace {

cpu_set_t set_of(const std::vector<int>& cpus) {
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int c : cpus) CPU_SET(c, &set);
  return set;
}

// Each CPU's (busy, total) ticks so far, from /proc/stat.
std::vector<std::pair<double, double>> cpu_ticks(const std::vector<int>& cpus) {
  std::vector<std::pair<double, double>> out(cpus.size(), {0, 0});
  std::ifstream stat("/proc/stat");
  std::string line;
  while (std::getline(stat, line)) {
    if (line.rfind("cpu", 0) != 0 || line.size() < 4 || line[3] < '0' || line[3] > '9') continue;
    std::istringstream in(line.substr(3));
    int cpu = -1;
    double user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0;
    in >> cpu >> user >> nice >> system >> idle >> iowait >> irq >> softirq >> steal;
    const auto it = std::find(cpus.begin(), cpus.end(), cpu);
    if (it == cpus.end()) continue;
    const double busy = user + nice + system + irq + softirq + steal;
    out[static_cast<std::size_t>(it - cpus.begin())] = {busy, busy + idle + iowait};
  }
  return out;
}

// Of each CPU's time over `window`, the share it was not idle (this process
// sleeps meanwhile, so the time is other processes').
std::vector<double> busy_fractions(const std::vector<int>& cpus, std::chrono::milliseconds window) {
  const auto before = cpu_ticks(cpus);
  std::this_thread::sleep_for(window);
  const auto after = cpu_ticks(cpus);
  std::vector<double> busy(cpus.size(), 0);
  for (std::size_t i = 0; i < cpus.size(); ++i) {
    const double total = after[i].second - before[i].second;
    busy[i] = total > 0 ? (after[i].first - before[i].first) / total : 0;
  }
  return busy;
}

double busy_seconds(const std::vector<int>& cpus) {
  double ticks = 0;
  for (const auto& [busy, total] : cpu_ticks(cpus)) ticks += busy;
  return ticks / static_cast<double>(sysconf(_SC_CLK_TCK));
}

double self_cpu_seconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
         static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) * 1e-6;
}

void set_affinity(const std::vector<int>& cpus) {
  const cpu_set_t set = set_of(cpus);
  if (sched_setaffinity(0, sizeof(set), &set) != 0) {
    throw std::runtime_error(fmt::format("cannot run on CPUs {}: {}", cpu_list_text(cpus), std::strerror(errno)));
  }
}

}  // namespace

std::vector<int> allowed_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<int> cpus;
  if (sched_getaffinity(0, sizeof(set), &set) != 0) return cpus;
  for (int c = 0; c < CPU_SETSIZE; ++c) {
    if (CPU_ISSET(c, &set)) cpus.push_back(c);
  }
  return cpus;
}

std::vector<int> parse_cpu_list(const std::string& text, const std::string& flag) {
  const std::vector<int> allowed = allowed_cpus();
  if (text == "all") return allowed;
  std::vector<int> cpus;
  auto bad = [&](const std::string& why) {
    return UsageError(fmt::format("{} {}: {} (expected CPU numbers such as 1, 0,2 or 0-3, or all)", flag, text, why));
  };
  std::size_t at = 0;
  while (at <= text.size()) {
    const std::size_t comma = std::min(text.find(',', at), text.size());
    const std::string part = text.substr(at, comma - at);
    const std::size_t dash = part.find('-');
    auto number = [&](const std::string& s) {
      if (s.empty() || s.size() > 4 || !std::all_of(s.begin(), s.end(), [](char ch) { return ch >= '0' && ch <= '9'; })) {
        throw bad(fmt::format("'{}' is not a CPU number", s));
      }
      return std::stoi(s);
    };
    const int first = number(dash == std::string::npos ? part : part.substr(0, dash));
    const int last = dash == std::string::npos ? first : number(part.substr(dash + 1));
    if (last < first) throw bad(fmt::format("the range {} runs backwards", part));
    for (int c = first; c <= last; ++c) {
      if (std::find(allowed.begin(), allowed.end(), c) == allowed.end()) {
        throw bad(fmt::format("CPU {} is not one this process may use ({})", c, cpu_list_text(allowed)));
      }
      if (std::find(cpus.begin(), cpus.end(), c) == cpus.end()) cpus.push_back(c);
    }
    at = comma + 1;
  }
  std::sort(cpus.begin(), cpus.end());
  return cpus;
}

int quietest_cpu(const std::vector<int>& cpus) {
  if (cpus.empty()) throw std::runtime_error("no CPU to choose from");
  if (cpus.size() == 1) return cpus.front();
  const std::vector<double> busy = busy_fractions(cpus, std::chrono::milliseconds(200));
  const double least = *std::min_element(busy.begin(), busy.end());
  const std::vector<int> before = allowed_cpus();
  int best = -1;
  double best_us = 0;
  for (std::size_t i = 0; i < cpus.size(); ++i) {
    if (busy[i] > least + 0.10) continue;
    set_affinity({cpus[i]});
    std::vector<double> probes;
    for (int k = 0; k < 5; ++k) probes.push_back(probe_speed_us());
    std::sort(probes.begin(), probes.end());
    const double us = probes[probes.size() / 2];  // a core now slow half the time is not the faster
    if (best < 0 || us < best_us) {
      best = cpus[i];
      best_us = us;
    }
  }
  set_affinity(before);
  return best;
}

void pin_process(const std::vector<int>& cpus) { set_affinity(cpus); }

CoreShare::CoreShare()
    : cpus_(allowed_cpus()),
      busy_start_s_(busy_seconds(cpus_)),
      self_start_s_(self_cpu_seconds()),
      wall_start_(std::chrono::steady_clock::now()) {}

double CoreShare::others_share(double children_cpu_s) const {
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start_).count();
  if (wall <= 0 || cpus_.empty()) return 0;
  const double others =
      busy_seconds(cpus_) - busy_start_s_ - (self_cpu_seconds() - self_start_s_) - children_cpu_s;
  return std::max(0.0, others / (wall * static_cast<double>(cpus_.size())));
}

std::string cpu_list_text(const std::vector<int>& cpus) {
  std::string out;
  for (std::size_t i = 0; i < cpus.size();) {
    std::size_t j = i;
    while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) ++j;
    if (!out.empty()) out += ",";
    out += j == i ? fmt::format("{}", cpus[i]) : fmt::format("{}-{}", cpus[i], cpus[j]);
    i = j + 1;
  }
  return out;
}

}  // namespace exsim::transport
