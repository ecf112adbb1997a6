// The receiving side of one exchange run on one host: its receiver instances,
// each with its queue(s) under the shared rules of models/rules/receiver_queue.h and
// a consumer thread. Calls arrive on the host's reactor thread: an admitted
// batch is decoded there (checksum, LZ4) and answered; a deferred one is kept,
// unanswered, until the consumer makes room, then decoded and answered by the
// consumer thread. A merging exchange keeps one queue per sender.
#ifndef EXSIM_TRANSPORT_EXCHANGE_RECEIVER_SIDE_H_
#define EXSIM_TRANSPORT_EXCHANGE_RECEIVER_SIDE_H_

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "models/rules/receiver_queue.h"
#include "models/scenario/scenario.h"
#include "transport/exchange/object_pool.h"
#include "transport/exchange/run_stats.h"
#include "transport/rpc/host.h"
#include "transport/wire/row_batch.h"

namespace exsim::transport {

class ReceiverSide final : public CallTarget {
 public:
  // The receiver instances of `exchange` placed on `host`.
  ReceiverSide(Host& host, const Exchange& exchange, const Policy& policy, RunStats& stats);
  ~ReceiverSide();

  void start();
  // Waits for every consumer to finish (all senders' end-of-stream, queues
  // drained). False at the deadline or when the run failed.
  bool wait(std::chrono::steady_clock::time_point deadline);
  void cancel();

  void on_call(const std::shared_ptr<Connection>& from, std::uint64_t call_id, const FrameHeader& header,
               const char* body, std::int64_t arrived_ns) override;

 private:
  struct Deferred {
    std::shared_ptr<Connection> from;
    std::uint64_t call_id;
    std::int64_t arrived_ns;
    std::uint32_t sender;
    std::vector<char> body;  // the call's bytes, kept until it is admitted
    std::chrono::steady_clock::time_point deferred_at;  // for traces
  };
  struct Queue {
    ReceiverQueue<Deferred*> calls;
    RingQueue<RowBatch*> batches;  // decoded, in the order of calls.pop()
    int open_senders = 0;
    // Deferred calls per sender: a sender within its window has at most
    // in_flight of them, so more is a broken peer, not memory to hand out.
    std::vector<int> deferred_by_sender;
  };
  struct Instance {
    std::mutex mutex;
    std::condition_variable changed;   // a batch or an end of stream arrived: wakes the consumer
    std::condition_variable finished;  // done: wakes wait(), which no batch should wake
    std::vector<Queue> queues;
    int open_queues = 0;
    std::size_t cursor = 0;
    bool done = false;
    std::chrono::steady_clock::time_point closed_at;  // its last end of stream
    std::thread consumer;
    int trace_tid = 0;
  };

  Bytes limit(const Instance& instance) const;
  // Decodes a call's batch and answers it; false (and the run fails) on a bad batch.
  RowBatch* decode(const char* body, std::size_t size, int instance);
  void answer(const std::shared_ptr<Connection>& from, std::uint64_t call_id, std::int64_t arrived_ns);
  void consume(int index);
  void give_back(Deferred* deferred);

  Host& host_;
  const Exchange& exchange_;
  std::uint64_t max_tuple_bytes_;  // largest batch a sender may send: checked before allocating
  const Policy& policy_;
  RunStats& stats_;
  std::vector<int> global_index_;  // instance on this host -> receiver instance of the exchange
  std::vector<std::unique_ptr<Instance>> instances_;
  ObjectPool<RowBatch> batch_pool_;
  ObjectPool<Deferred> deferred_pool_;  // every call's record, reused: no allocation per call
  std::atomic<std::uint64_t> consumed_checksum_{0};  // keeps the consumers' reads from being optimized away
};

}  // namespace exsim::transport

#endif  // EXSIM_TRANSPORT_EXCHANGE_RECEIVER_SIDE_H_
