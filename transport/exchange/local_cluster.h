// Runs one exchange of a scenario for real inside one process: a Host per
// scenario host on loopback, each with its reactor, its receiver instances and
// its sender threads, the RTT imposed by delay lines. The building block that
// `exsim agent` runs per process; here for tests and for in-process runs.
#ifndef EXSIM_TRANSPORT_EXCHANGE_LOCAL_CLUSTER_H_
#define EXSIM_TRANSPORT_EXCHANGE_LOCAL_CLUSTER_H_

#include <chrono>
#include <memory>
#include <vector>

#include "models/scenario/scenario.h"
#include "transport/exchange/run_stats.h"
#include "transport/rpc/host.h"

namespace exsim::transport {

struct ExchangeOutcome {
  bool ok = false;
  std::string error;
  double wall_s = 0;
  double lz4_ratio = 1;  // achieved on compressed channels
};

class LocalCluster {
 public:
  // `delay_line`: impose half the scenario's RTT each way; `nic_cap`: pace each
  // host's outbound and inbound bytes at the scenario's nic_gbps.
  LocalCluster(const Scenario& scenario, bool delay_line, bool nic_cap = false);
  ~LocalCluster();

  // Runs query `query`, repetition `repetition`, exchange `exchange` under `policy`.
  ExchangeOutcome run_exchange(const Policy& policy, std::size_t query, int repetition, std::size_t exchange,
                               RunStats& stats, std::chrono::seconds timeout);

  Host& host(int index) { return *hosts_[static_cast<std::size_t>(index)]; }

 private:
  const Scenario& scenario_;
  std::vector<std::unique_ptr<Host>> hosts_;
  std::uint32_t next_run_ = 1;
};

}  // namespace exsim::transport

#endif  // EXSIM_TRANSPORT_EXCHANGE_LOCAL_CLUSTER_H_
