// One execution of one exchange: its sender and receiver instances, from the
// moment it starts until every receiver has consumed every row and every
// sender has its end-of-stream acknowledged.
#ifndef EXSIM_SIM_EXCHANGE_EXCHANGE_RUN_H_
#define EXSIM_SIM_EXCHANGE_EXCHANGE_RUN_H_

#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include "models/results/bound.h"
#include "models/rules/sizing_policy.h"
#include "models/scenario/scenario.h"
#include "sim/exchange/model_context.h"
#include "sim/exchange/row_router.h"
#include "sim/exchange/sender_window.h"

namespace exsim::sim {

class SenderInstance;
class ReceiverInstance;

struct ExchangeStats {
  std::int64_t rows_delivered = 0;
  std::int64_t rpcs = 0;
  std::int64_t eos_rpcs = 0;
  std::int64_t deferred_rpcs = 0;
  double bytes_wire = 0;
  double bytes_uncompressed = 0;  // TransmitData tuple data plus offsets
  SimTime blocked_ns = 0;
  // TransmitData calls' network and receiver times, summed (RpcNetworkTime and
  // RpcRecvrTime, which Impala's profile keeps per sender).
  SimTime network_ns = 0;
  SimTime receiver_ns = 0;
  std::array<SimTime, kBounds> sender_time_ns{};  // sender threads' time by what bounded it
  SimTime last_sender_done = 0;
  SenderWindow middle;
  std::array<ProgressMark, 2> marks;  // at the middle's ends (kMiddleEighths)
};

class ExchangeRun {
 public:
  class Listener {
   public:
    virtual void exchange_finished(ExchangeRun& run) = 0;

   protected:
    ~Listener() = default;
  };

  ExchangeRun(ModelContext& context, const Exchange& exchange, std::uint64_t seed, Listener& listener);
  ~ExchangeRun();
  ExchangeRun(const ExchangeRun&) = delete;
  ExchangeRun& operator=(const ExchangeRun&) = delete;

  void start();
  // A sender has taken `rows` more input rows (marks the middle's ends).
  void note_produced(std::int64_t rows);
  void sender_finished(SenderInstance& sender);
  void receiver_finished(ReceiverInstance& receiver);

  const Exchange& exchange() const { return exchange_; }
  ModelContext& context() { return context_; }
  int channels() const { return exchange_.receivers.instances(); }
  const BatchCapacity& capacity() const { return capacity_; }
  const HashSplitter& splitter() const { return splitter_; }
  // The load this exchange's senders put on `host`'s cache, and what it makes
  // a byte on the wire cost each side there (CostRates).
  const CacheLoad& cache_load(int host) const { return cache_load_[static_cast<std::size_t>(host)]; }
  double transfer_ns_per_byte(int host) const { return transfer_ns_per_byte_[static_cast<std::size_t>(host)]; }
  double decode_miss_ns_per_byte(int host) const { return decode_miss_ns_per_byte_[static_cast<std::size_t>(host)]; }
  ReceiverInstance& receiver(int instance) { return *receivers_[static_cast<std::size_t>(instance)]; }
  ExchangeStats& stats() { return stats_; }
  const ExchangeStats& stats() const { return stats_; }
  SimTime started_at() const { return started_at_; }
  SimTime finished_at() const { return finished_at_; }
  const std::vector<std::unique_ptr<SenderInstance>>& senders() const { return senders_; }

 private:
  void check_finished();
  void mark(ProgressMark& at) const;

  ModelContext& context_;
  const Exchange& exchange_;
  Listener& listener_;
  BatchCapacity capacity_;
  HashSplitter splitter_;
  std::vector<CacheLoad> cache_load_;
  std::vector<double> transfer_ns_per_byte_;
  std::vector<double> decode_miss_ns_per_byte_;  // a receiver's, per byte deserialized (CostRates)
  std::vector<std::unique_ptr<SenderInstance>> senders_;
  std::vector<std::unique_ptr<ReceiverInstance>> receivers_;
  ExchangeStats stats_;
  std::int64_t rows_produced_ = 0;
  int senders_left_ = 0;
  int receivers_left_ = 0;
  SimTime started_at_ = 0;
  SimTime finished_at_ = -1;
};

}  // namespace exsim::sim

#endif  // EXSIM_SIM_EXCHANGE_EXCHANGE_RUN_H_
