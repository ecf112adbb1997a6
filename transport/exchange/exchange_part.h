// One host's part of one exchange run: the receiver instances and the sender
// threads the scenario places on that host. Every host of a run prepares its
// part (receivers registered) before any starts (senders begin), so no call
// finds its receiver missing. An agent process runs one part per exchange;
// LocalCluster runs every host's part in one process.
#ifndef EXSIM_TRANSPORT_EXCHANGE_EXCHANGE_PART_H_
#define EXSIM_TRANSPORT_EXCHANGE_EXCHANGE_PART_H_

#include <chrono>
#include <memory>
#include <vector>

#include "models/scenario.h"
#include "transport/exchange/host.h"
#include "transport/exchange/run_stats.h"

namespace exsim::transport {

class ReceiverSide;
class SenderInstance;

struct PartSpec {
  std::size_t query = 0;
  int repetition = 0;
  std::size_t exchange = 0;
  std::uint32_t run = 0;  // unique per exchange run across the hosts
  std::chrono::steady_clock::time_point deadline;
};

class ExchangePart {
 public:
  ExchangePart(Host& host, const Scenario& scenario, const Policy& policy, const PartSpec& spec, RunStats& stats);
  ~ExchangePart();  // stops what still runs; no call reaches it afterwards

  // Registers the receivers with the host and calibrates the row generator.
  void prepare();
  // Starts the consumers and the senders.
  void start();
  // Waits for the senders (cancelling them all once the run failed or the
  // deadline passed), then for the receivers. True when all ended well.
  bool wait();
  // Cancels everything: the run has failed elsewhere.
  void cancel(const std::string& reason);

  double lz4_ratio_target() const { return exchange_.lz4_ratio; }

 private:
  Host& host_;
  const Scenario& scenario_;
  const Policy& policy_;
  const Exchange& exchange_;
  PartSpec spec_;
  RunStats& stats_;
  std::unique_ptr<ReceiverSide> receivers_;
  std::vector<std::unique_ptr<SenderInstance>> senders_;
  bool registered_ = false;
  bool started_ = false;
  bool finished_ = false;
};

}  // namespace exsim::transport

#endif  // EXSIM_TRANSPORT_EXCHANGE_EXCHANGE_PART_H_
