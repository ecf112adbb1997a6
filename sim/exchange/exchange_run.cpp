#include "sim/exchange/exchange_run.h"

#include "models/rules/partitioning.h"
#include "sim/exchange/receiver.h"
#include "sim/exchange/sender.h"

namespace exsim::sim {

ExchangeRun::ExchangeRun(ModelContext& context, const Exchange& exchange, std::uint64_t seed, Listener& listener)
    : context_(context),
      exchange_(exchange),
      listener_(listener),
      capacity_(channel_capacity(context.policy, exchange.row, exchange.receivers.instances())),
      splitter_(receiver_shares(exchange, seed)),
      cache_load_(sender_cache_load(context.scenario, context.policy, exchange)) {
  for (const CacheLoad& load : cache_load_) {
    transfer_ns_per_byte_.push_back(context.rates.transfer_ns_per_byte_at(load));
    decode_miss_ns_per_byte_.push_back(context.rates.decode_miss_ns_per_byte_at(load));
  }
  const int senders = exchange.senders.instances();
  const int receivers = exchange.receivers.instances();
  const bool merging = exchange.kind == PartitionKind::kMerge;
  for (int r = 0; r < receivers; ++r) {
    receivers_.push_back(std::make_unique<ReceiverInstance>(*this, exchange.receivers.host_of(r), senders, merging));
  }
  for (int s = 0; s < senders; ++s) {
    senders_.push_back(std::make_unique<SenderInstance>(*this, s, exchange.senders.host_of(s), sender_rows(exchange, s),
                                                        sender_seed(seed, s)));
  }
  senders_left_ = senders;
  receivers_left_ = receivers;
}

ExchangeRun::~ExchangeRun() = default;

void ExchangeRun::start() {
  started_at_ = context_.simulator.now();
  for (auto& sender : senders_) sender->start();
}

void ExchangeRun::note_produced(std::int64_t rows) {
  const std::int64_t before = rows_produced_;
  rows_produced_ += rows;
  for (std::size_t i = 0; i < stats_.marks.size(); ++i) {
    const std::int64_t at = exchange_.rows * kMiddleEighths[i] / 8;
    if (before < at && rows_produced_ >= at) mark(stats_.marks[i]);
  }
}

void ExchangeRun::mark(ProgressMark& at) const {
  at.at = context_.simulator.now();
  at.rows = rows_produced_;
  at.cpu = context_.cpu;
  at.rpcs = stats_.rpcs;
  at.deferred_rpcs = stats_.deferred_rpcs;
  at.network_ns = stats_.network_ns;
  at.receiver_ns = stats_.receiver_ns;
  for (const auto& sender : senders_) {
    at.rooms += sender->buffer_rooms();
    at.outbound += sender->outbound_buffers();
  }
  for (int h = 0; h < static_cast<int>(context_.scenario.cluster.hosts.size()); ++h) {
    at.sender_peaks += context_.memory.sender_peak(h);
    at.receiver_peaks += context_.memory.receiver_peak(h);
  }
}

void ExchangeRun::sender_finished(SenderInstance& /*sender*/) {
  --senders_left_;
  check_finished();
}

void ExchangeRun::receiver_finished(ReceiverInstance& /*receiver*/) {
  --receivers_left_;
  check_finished();
}

void ExchangeRun::check_finished() {
  if (senders_left_ > 0 || receivers_left_ > 0 || finished_at_ >= 0) return;
  finished_at_ = context_.simulator.now();
  listener_.exchange_finished(*this);
}

}  // namespace exsim::sim
