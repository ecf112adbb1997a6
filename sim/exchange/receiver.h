// One receiver instance: the exchange node's queue(s) and the thread that
// consumes them (docs/impala.md §5). A non-merging exchange has one queue for
// all senders; a merging one has a queue per sender, sharing the limit among
// the queues still open (IMPALA-13475).
//
// Admission, deferral and un-deferral follow models/rules/receiver_queue.h, the
// rules the real exchange applies too: a deferred call's response is withheld,
// so the sender's channel stays busy, which is the backpressure (§5.4).
#ifndef EXSIM_SIM_EXCHANGE_RECEIVER_H_
#define EXSIM_SIM_EXCHANGE_RECEIVER_H_

#include <cstdint>
#include <vector>

#include "models/rules/receiver_queue.h"
#include "sim/exchange/rpc.h"

namespace exsim::sim {

class ExchangeRun;
struct ModelContext;

class ReceiverInstance final : public EventHandler {
 public:
  // One queue that all `senders` share, or (`merging`) one per sender.
  ReceiverInstance(ExchangeRun& run, int host, int senders, bool merging);

  int host() const { return host_; }
  // A call has reached this instance.
  void on_arrival(Rpc* rpc);
  // The receiver-side work of a call (deserialization) has finished.
  void on_work_done(Rpc* rpc);
  // The consumer has finished a batch (an event only when something waits for
  // that: see consume_next).
  void on_event(std::uint64_t tag) override;

 private:
  struct Queue {
    ReceiverQueue<Rpc*> calls;
    int open_senders = 0;
  };

  Queue& queue_of(const Rpc& rpc);
  Bytes limit() const;
  // The calls in flight at this host that share a call's system calls and
  // wake-ups: other senders' calls from and to the host, and itself.
  int sharing(const Rpc& rpc) const;
  // The RPC layer's CPU of the call's receiving side (CostRates::received_call_ns).
  double call_work_ns(const Rpc& rpc) const;
  void start_work(Rpc* rpc);
  void consume_next();
  // The queue has changed: the consumer takes the next batch now if it is
  // idle, or when its batch ends.
  void wake_consumer();
  void finish_batch();

  ExchangeRun& run_;
  ModelContext& context_;
  const int host_;
  const bool merging_;
  std::vector<Queue> queues_;
  int open_queues_;
  std::size_t merge_cursor_ = 0;
  bool consuming_ = false;
  bool finished_ = false;
  std::int64_t consuming_rows_ = 0;
  SimTime batch_end_ = -1;   // when the batch being consumed ends, if known (one slice or less)
  bool end_event_ = false;   // an event comes at the batch's end
  int trace_tid_ = 0;
};

}  // namespace exsim::sim

#endif  // EXSIM_SIM_EXCHANGE_RECEIVER_H_
