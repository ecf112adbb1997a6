// The rules of one exchange receiver queue (docs/impala.md §§5.2-5.5), shared
// by the simulator and the real exchange so that both apply the same ones:
// - a batch is admitted when the queue is truly empty (no batches, none being
//   deserialized), or when it fits under the limit counting batches queued and
//   being deserialized (a soft limit: one batch may overshoot it);
// - otherwise, or whenever earlier calls are already deferred, the call is
//   deferred, FIFO, and its response withheld (the backpressure);
// - when the consumer takes a batch, deferred calls that now fit are admitted in
//   order, at least one if the queue is then empty.
// Sizes are deserialized bytes. The queue knows sizes and calls only: the
// caller does the work (deserialize, respond) and the memory accounting.
#ifndef EXSIM_MODELS_RULES_RECEIVER_QUEUE_H_
#define EXSIM_MODELS_RULES_RECEIVER_QUEUE_H_

#include <cstdint>
#include <optional>

#include "models/base/ring_queue.h"
#include "models/base/size.h"

namespace exsim {

struct QueuedBatch {
  std::int64_t rows = 0;
  Bytes bytes = 0;  // deserialized
};

template <typename Call>
class ReceiverQueue {
 public:
  // A call carrying `bytes` arrives. True: admitted, its bytes now count as being
  // deserialized; the caller deserializes, then calls enqueue(). False: deferred.
  bool arrive(const Call& call, Bytes bytes, Bytes limit) {
    if (!deferred_.empty() || !fits(bytes, limit)) {
      deferred_.push(Deferred{call, bytes});
      return false;
    }
    pending_ += bytes;
    return true;
  }

  // An admitted call's batch has been deserialized and joins the queue.
  void enqueue(const QueuedBatch& batch) {
    pending_ -= batch.bytes;
    buffered_ += batch.bytes;
    batches_.push(batch);
  }

  // The consumer takes the oldest batch, if any.
  std::optional<QueuedBatch> pop() {
    if (batches_.empty()) return std::nullopt;
    QueuedBatch batch = batches_.pop();
    buffered_ -= batch.bytes;
    return batch;
  }

  // Admits the deferred calls that now fit, oldest first, calling
  // admit(call, bytes) for each (their bytes then count as being deserialized).
  template <typename Admit>
  void undefer(Bytes limit, Admit&& admit) {
    while (!deferred_.empty() && fits(deferred_.front().bytes, limit)) {
      Deferred d = deferred_.pop();
      pending_ += d.bytes;
      admit(d.call, d.bytes);
    }
  }

  bool has_batches() const { return !batches_.empty(); }
  // Nothing queued, being deserialized or deferred.
  bool drained() const { return batches_.empty() && pending_ == 0 && deferred_.empty(); }
  Bytes buffered_bytes() const { return buffered_; }
  Bytes pending_bytes() const { return pending_; }
  std::size_t deferred_calls() const { return deferred_.size(); }

 private:
  struct Deferred {
    Call call;
    Bytes bytes;
  };

  bool fits(Bytes bytes, Bytes limit) const {
    if (batches_.empty() && pending_ == 0) return true;  // always accept into an empty queue
    return buffered_ + pending_ + bytes <= limit;
  }

  RingQueue<QueuedBatch> batches_;
  RingQueue<Deferred> deferred_;
  Bytes buffered_ = 0;
  Bytes pending_ = 0;
};

}  // namespace exsim

#endif  // EXSIM_MODELS_RULES_RECEIVER_QUEUE_H_
