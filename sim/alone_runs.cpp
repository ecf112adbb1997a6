#include "sim/alone_runs.h"

#include <stdexcept>

#include "sim/exchange/rpc_transport.h"
#include "sim/run_inputs.h"

namespace exsim::sim {
namespace {

class Ended final : public ExchangeRun::Listener {
 public:
  void exchange_finished(ExchangeRun& /*run*/) override {}
};

AloneRun simulate_apart(const ModelContext& context, const Exchange& exchange, std::uint64_t seed,
                        const std::string& scheduler) {
  ModelContext apart(context.scenario, context.policy, make_scheduler(scheduler));
  apart.memory.set_peaks(context.memory.peaks());
  apart.cpu = context.cpu;
  apart.query = context.query;
  Ended ended;
  ExchangeRun run(apart, exchange, seed, ended);
  run.start();
  apart.simulator.run();
  if (run.finished_at() < 0) throw std::logic_error("internal error: an exchange simulated apart did not end");
  AloneRun alone;
  alone.recorded = record_run(run, context.query, 0);
  alone.duration = run.finished_at() - run.started_at();
  alone.cpu = apart.cpu;
  alone.peaks = apart.memory.peaks();
  alone.rpc_network_ns = apart.rpc_network_ns.buckets();
  alone.rpc_receiver_ns = apart.rpc_receiver_ns.buckets();
  alone.sender_wake_ns = apart.sender_wake_ns.buckets();
  alone.events = apart.simulator.events_processed();
  alone.rpc_records = apart.transport->rpcs_allocated();
  alone.max_pending = apart.simulator.max_pending();
  return alone;
}

}  // namespace

std::vector<bool> runs_alone(const Query& query) {
  const std::size_t n = query.exchanges.size();
  std::vector<std::vector<bool>> before(n, std::vector<bool>(n, false));  // before[x][y]: y ends before x starts
  std::vector<int> state(n, 0);  // 0 unseen, 1 in progress, 2 done
  const auto visit = [&](auto&& self, std::size_t x) -> void {
    if (state[x] != 0) return;  // `after` has no cycles (the loader checks)
    state[x] = 1;
    for (const int y : query.exchanges[x].after) {
      const auto u = static_cast<std::size_t>(y);
      self(self, u);
      before[x][u] = true;
      for (std::size_t z = 0; z < n; ++z) before[x][z] = before[x][z] || before[u][z];
    }
    state[x] = 2;
  };
  for (std::size_t x = 0; x < n; ++x) visit(visit, x);
  std::vector<bool> alone(n, true);
  for (std::size_t x = 0; x < n; ++x) {
    for (std::size_t y = 0; y < n; ++y) {
      if (x != y && !before[x][y] && !before[y][x]) alone[x] = false;
    }
  }
  return alone;
}

// The cheap and telling first: under one seed, runs differ in their CPU so far,
// policy or costs; the cluster (a matrix of RTTs) last.
bool AloneRunCache::Key::operator==(const Key& other) const {
  return cpu == other.cpu && mt_dop == other.mt_dop && policy == other.policy && peaks == other.peaks &&
         costs == other.costs && exchange == other.exchange && cluster == other.cluster;
}

AloneRunCache::Taken AloneRunCache::run(const ModelContext& context, const Exchange& exchange, std::uint64_t seed,
                                        const std::string& scheduler) {
  Key key{exchange,
          context.scenario.cluster,
          context.scenario.mt_dop,
          policy_seen_by(context.policy, exchange),
          costs_seen_by(context.scenario.costs, exchange),
          context.memory.peaks(),
          context.cpu};
  {
    const std::lock_guard<std::mutex> guard(mutex_);
    for (const auto& [kept_key, kept_run] : kept_[seed]) {
      if (kept_key == key) return {kept_run, false};
    }
  }
  // Simulated outside the lock: another thread may simulate the same run, to the same figures.
  auto alone = std::make_shared<const AloneRun>(simulate_apart(context, exchange, seed, scheduler));
  const std::lock_guard<std::mutex> guard(mutex_);
  kept_[seed].emplace_back(std::move(key), alone);
  return {alone, true};
}

std::size_t AloneRunCache::runs_kept() const {
  const std::lock_guard<std::mutex> guard(mutex_);
  std::size_t n = 0;
  for (const auto& [seed, runs] : kept_) n += runs.size();
  return n;
}

}  // namespace exsim::sim
