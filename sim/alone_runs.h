// Exchanges that run alone, simulated apart and kept across the simulations a
// workflow makes of one scenario.
//
// An exchange that runs alone in its query (`after` orders it with every other
// one) starts on an idle cluster: no buffer held, no call, transfer or CPU
// step of another exchange left. Its run then depends only on the exchange and
// its seed, the cluster, MT_DOP, the costs and the policy as it reads them
// (sim/run_inputs.h), and what the run before it leaves behind: the memory high-water marks (they decide which
// bytes fault in fresh) and the CPU seconds so far (its own are added to them,
// in the same order). Simulated apart in a model of its own started from those,
// it gives the same events, and so the same figures bit for bit, as among the
// others: only the clock is offset. A workflow's simulations then share such
// runs: the production scenario's broadcast is the same run under every flat
// buffer size and every cost of a hash sender's routing. The key holds all of
// the scenario a run reads, so one cache may serve any simulations. Safe to
// share between threads. The query driver takes only a simulation's leading
// alone exchanges from it (sim/simulate.cpp).
#ifndef EXSIM_SIM_ALONE_RUNS_H_
#define EXSIM_SIM_ALONE_RUNS_H_

#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "models/base/histogram.h"
#include "sim/exchange/model_context.h"
#include "sim/run_record.h"

namespace exsim::sim {

// alone[x]: exchange x of `query` is ordered by `after` with every other one
// (one waits, perhaps through others, for the other to end), so no other runs
// beside it.
std::vector<bool> runs_alone(const Query& query);

// An exchange run simulated apart, from time 0.
struct AloneRun {
  RecordedRun recorded;
  SimTime duration = 0;
  CpuByStage cpu;                       // the model's CPU seconds at its end (from those at its start)
  MemoryLedger::Peaks peaks;            // the ledger's high-water marks at its end
  // Its calls' times alone (LogHistogram::buckets: a few of the thousands of buckets).
  using Buckets = std::vector<std::pair<int, std::int64_t>>;
  Buckets rpc_network_ns, rpc_receiver_ns, sender_wake_ns;
  static void add(LogHistogram& to, const Buckets& buckets) {
    for (const auto& [index, count] : buckets) to.add_bucket(index, count);
  }
  std::uint64_t events = 0, rpc_records = 0;
  std::size_t max_pending = 0;
};

class AloneRunCache {
 public:
  // The run of `exchange` (run `seed`) as it would go in `context` now: kept,
  // or simulated apart and kept. REQUIRES: context.memory.idle() and no other
  // exchange running.
  struct Taken {
    std::shared_ptr<const AloneRun> run;
    bool simulated;  // now, rather than kept from another simulation
  };
  Taken run(const ModelContext& context, const Exchange& exchange, std::uint64_t seed, const std::string& scheduler);
  std::size_t runs_kept() const;

 private:
  struct Key {
    Exchange exchange;
    Cluster cluster;
    int mt_dop;
    Policy policy;      // as the exchange reads them (sim/run_inputs.h)
    CostProfile costs;
    MemoryLedger::Peaks peaks;
    CpuByStage cpu;
    bool operator==(const Key&) const;
  };
  mutable std::mutex mutex_;
  std::unordered_map<std::uint64_t, std::vector<std::pair<Key, std::shared_ptr<const AloneRun>>>> kept_;  // by seed
};

}  // namespace exsim::sim

#endif  // EXSIM_SIM_ALONE_RUNS_H_
