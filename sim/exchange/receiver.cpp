#include "sim/exchange/receiver.h"

#include "sim/exchange/exchange_run.h"
#include "sim/exchange/model_context.h"
#include "sim/exchange/rpc_transport.h"
#include "sim/exchange/sender.h"

namespace exsim::sim {

ReceiverInstance::Queue& ReceiverInstance::queue_of(const Rpc& rpc) {
  return queues_[merging_ ? static_cast<std::size_t>(rpc.sender->index()) : 0];
}

ReceiverInstance::ReceiverInstance(ExchangeRun& run, int host, int senders, bool merging)
    : run_(run),
      context_(run.context()),
      host_(host),
      merging_(merging),
      queues_(merging ? static_cast<std::size_t>(senders) : 1),
      open_queues_(static_cast<int>(queues_.size())) {
  for (auto& q : queues_) q.open_senders = merging ? 1 : senders;
  trace_tid_ = context_.trace_track(host_, run.exchange().id + " receiver");
}

int ReceiverInstance::sharing(const Rpc& rpc) const {
  // Its connection's calls not yet answered (itself among them), or those its
  // sender counted on it when it went out, if more; none to count when calls'
  // CPU does not depend on them.
  if (!context_.rates.calls_share()) return 1;
  return std::max(rpc.together, context_.transport->calls_on_connection(rpc.from_host, rpc.to_host));
}

double ReceiverInstance::call_work_ns(const Rpc& rpc) const {
  return context_.rates.received_call_ns(rpc.wire_bytes, sharing(rpc), run_.transfer_ns_per_byte(host_), rpc.waited);
}

Bytes ReceiverInstance::limit() const {
  // A merging exchange divides the limit among the queues still open (docs/impala.md §5.2).
  return merging_ ? context_.policy.receiver_buffer / std::max(1, open_queues_) : context_.policy.receiver_buffer;
}

void ReceiverInstance::on_arrival(Rpc* rpc) {
  if (rpc->eos) {  // EndDataStream is always admitted (IMPALA-13130)
    const double rpc_work = call_work_ns(*rpc);
    context_.cpu.rpc += rpc_work * 1e-9;
    context_.transport->start_receiver_work(rpc, to_ns(rpc_work));
    return;
  }
  Queue& queue = queue_of(*rpc);
  if (queue.calls.arrive(rpc, rpc->deserialized_bytes(), limit())) {
    start_work(rpc);
  } else {
    ++run_.stats().deferred_rpcs;
    rpc->deferred = context_.simulator.now();
    // The payload waits in memory; its pages faulted in on the reactor's read,
    // which the model does not charge (memory written for the first time is
    // charged where a batch is deserialized).
    context_.memory.add_receiver(host_, rpc->wire_bytes);
    context_.transport->leave_service_thread(rpc);  // last: it may hand the thread to the next call now
  }
}

// Receiver CPU of an admitted call: RPC, LZ4 decompression, deserialization.
void ReceiverInstance::start_work(Rpc* rpc) {
  // The batch's buffers, allocated as it is deserialized, fault in where they
  // grow the host's memory.
  const Bytes fresh = context_.memory.add_receiver(host_, rpc->deserialized_bytes());
  const auto tuple = static_cast<double>(rpc->tuple_bytes);
  const double decompress = rpc->compressed ? tuple * context_.rates.decompress_ns_per_byte : 0;
  const double deserialize = context_.rates.deserialize_ns(rpc->rows, rpc->tuple_bytes) +
                             static_cast<double>(rpc->deserialized_bytes()) * run_.decode_miss_ns_per_byte(host_) +
                             static_cast<double>(fresh) * context_.rates.fresh_ns_per_byte;
  context_.cpu.decompress += decompress * 1e-9;
  context_.cpu.deserialize += deserialize * 1e-9;
  const double rpc_work = call_work_ns(*rpc);
  context_.cpu.rpc += rpc_work * 1e-9;
  context_.transport->start_receiver_work(rpc, to_ns(decompress + deserialize + rpc_work));
}

void ReceiverInstance::on_work_done(Rpc* rpc) {
  Queue& queue = queue_of(*rpc);
  if (rpc->eos) {
    if (--queue.open_senders == 0) --open_queues_;
  } else {
    queue.calls.enqueue({rpc->rows, rpc->deserialized_bytes()});
  }
  context_.transport->respond(rpc);
  wake_consumer();
}

// A consumer's batch usually ends with nothing queued behind it: the thread
// just goes idle, which nobody sees. So a batch of one slice or less that
// nothing waits for yet gets no event when it starts (the CPU pool knows its
// end all the same). When the queue next changes, either the batch is over
// (the consumer went idle at its end and takes the next batch now) or an event
// is scheduled for its end. Results are as with an event per batch, up to the
// order of events due in the same nanosecond.
void ReceiverInstance::wake_consumer() {
  if (!consuming_) {
    consume_next();
    return;
  }
  if (end_event_) return;  // the end is an event already
  if (batch_end_ <= context_.simulator.now()) {
    finish_batch();
    consume_next();
    return;
  }
  end_event_ = true;
  context_.simulator.at(batch_end_, this, 0);
}

void ReceiverInstance::finish_batch() {
  consuming_ = false;
  end_event_ = false;
  batch_end_ = -1;
  run_.stats().rows_delivered += consuming_rows_;
}

void ReceiverInstance::consume_next() {
  if (consuming_ || finished_) return;
  // Non-merging: the one queue. Merging: the queues in turn, waiting on an open
  // empty queue, since a merge needs the next rows of every sender.
  for (std::size_t tried = 0; tried < queues_.size(); ++tried) {
    const std::size_t i = merging_ ? merge_cursor_ : 0;
    Queue& queue = queues_[i];
    std::optional<QueuedBatch> batch = queue.calls.pop();
    if (!batch) {
      if (queue.open_senders > 0 || !queue.calls.drained()) return;  // wait for it
      merge_cursor_ = (merge_cursor_ + 1) % queues_.size();
      continue;  // this queue is done
    }
    context_.memory.add_receiver(host_, -batch->bytes);
    if (merging_) merge_cursor_ = (merge_cursor_ + 1) % queues_.size();
    queue.calls.undefer(limit(), [&](Rpc* rpc, Bytes) {
      context_.memory.add_receiver(host_, -rpc->wire_bytes);
      rpc->held_for = context_.simulator.now() - rpc->deferred;
      if (context_.trace) {
        context_.trace->span(context_.trace_pid(host_), trace_tid_, "deferred", rpc->deferred, context_.simulator.now(),
                             rpc->rows, rpc->wire_bytes);
      }
      start_work(rpc);
    });
    consuming_ = true;
    consuming_rows_ = batch->rows;
    const double rate = run_.exchange().consume_rows_per_s;
    const double ns = rate > 0 ? static_cast<double>(batch->rows) / rate * 1e9 : 0;
    context_.cpu.consume += ns * 1e-9;
    const SimTime work = to_ns(ns);
    CpuPool& pool = context_.cpu_pool(host_);
    // Something waits for this batch's end already: the next batch, the end
    // of the stream, or (merging) another sender's queue.
    const bool awaited =
        merging_ || queue.calls.has_batches() || (queue.open_senders == 0 && queue.calls.drained());
    if (!awaited && work > 0 && work <= pool.slice()) {
      batch_end_ = pool.run(work);  // no event unless the queue changes before it ends
    } else {
      end_event_ = true;
      pool.start(work, this, 0);
    }
    return;
  }
  finished_ = true;  // every queue closed and drained
  run_.receiver_finished(*this);
}

void ReceiverInstance::on_event(std::uint64_t /*tag*/) {
  finish_batch();
  consume_next();
}

}  // namespace exsim::sim
