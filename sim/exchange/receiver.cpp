#include "sim/exchange/receiver.h"

#include "sim/exchange/exchange_run.h"
#include "sim/exchange/model_context.h"
#include "sim/exchange/rpc_transport.h"

namespace exsim::sim {

ReceiverInstance::ReceiverInstance(ExchangeRun& run, int index, int host, int senders, bool merging)
    : run_(run),
      context_(run.context()),
      index_(index),
      host_(host),
      merging_(merging),
      queues_(merging ? static_cast<std::size_t>(senders) : 1),
      open_queues_(static_cast<int>(queues_.size())) {
  for (auto& q : queues_) q.open_senders = merging ? 1 : senders;
}

Bytes ReceiverInstance::limit() const {
  // A merging exchange divides the limit among the queues still open (section 5.2).
  return merging_ ? context_.policy.receiver_buffer / std::max(1, open_queues_) : context_.policy.receiver_buffer;
}

bool ReceiverInstance::can_admit(const Queue& queue, Bytes bytes) const {
  if (queue.batches.empty() && queue.pending == 0) return true;  // always accept into an empty queue
  return queue.buffered + queue.pending + bytes <= limit();
}

void ReceiverInstance::on_arrival(Rpc* rpc) {
  Queue& queue = queue_of(*rpc);
  if (rpc->eos) {  // EndDataStream is always admitted (IMPALA-13130)
    context_.cpu.rpc += static_cast<double>(context_.rates.rpc_cpu) * 1e-9;
    context_.transport->start_receiver_work(rpc, context_.rates.rpc_cpu);
    return;
  }
  if (!queue.deferred.empty() || !can_admit(queue, rpc->deserialized_bytes())) {
    queue.deferred.push(rpc);  // FIFO behind earlier deferrals (recvr.cc:516-528)
    ++run_.stats().deferred_rpcs;
    context_.memory.add_receiver(host_, rpc->wire_bytes);
    return;
  }
  admit(queue, rpc);
}

void ReceiverInstance::admit(Queue& queue, Rpc* rpc) {
  const Bytes bytes = rpc->deserialized_bytes();
  queue.pending += bytes;
  context_.memory.add_receiver(host_, bytes);
  const auto tuple = static_cast<double>(rpc->tuple_bytes);
  const double decompress = rpc->compressed ? tuple * context_.rates.decompress_ns_per_byte : 0;
  const double deserialize = tuple * context_.rates.deserialize_ns_per_byte;
  context_.cpu.decompress += decompress * 1e-9;
  context_.cpu.deserialize += deserialize * 1e-9;
  context_.cpu.rpc += static_cast<double>(context_.rates.rpc_cpu) * 1e-9;
  context_.transport->start_receiver_work(rpc, to_ns(decompress + deserialize) + context_.rates.rpc_cpu);
}

void ReceiverInstance::on_work_done(Rpc* rpc) {
  Queue& queue = queue_of(*rpc);
  if (rpc->eos) {
    if (--queue.open_senders == 0) --open_queues_;
  } else {
    const Bytes bytes = rpc->deserialized_bytes();
    queue.pending -= bytes;
    queue.buffered += bytes;
    queue.batches.push({rpc->rows, bytes});
  }
  context_.transport->respond(rpc);
  consume_next();
}

void ReceiverInstance::undefer(Queue& queue) {
  while (!queue.deferred.empty()) {
    Rpc* rpc = queue.deferred.front();
    if (!can_admit(queue, rpc->deserialized_bytes())) break;
    queue.deferred.pop();
    context_.memory.add_receiver(host_, -rpc->wire_bytes);
    admit(queue, rpc);
  }
}

void ReceiverInstance::consume_next() {
  if (consuming_ || finished_) return;
  // Non-merging: the one queue. Merging: the queues in turn, waiting on an open
  // empty queue, since a merge needs the next rows of every sender.
  for (std::size_t tried = 0; tried < queues_.size(); ++tried) {
    const std::size_t i = merging_ ? merge_cursor_ : 0;
    Queue& queue = queues_[i];
    if (queue.batches.empty()) {
      if (queue.open_senders > 0 || queue.pending > 0 || !queue.deferred.empty()) return;  // wait for it
      merge_cursor_ = (merge_cursor_ + 1) % queues_.size();
      continue;  // this queue is done
    }
    QueuedBatch batch = queue.batches.pop();
    queue.buffered -= batch.bytes;
    context_.memory.add_receiver(host_, -batch.bytes);
    if (merging_) merge_cursor_ = (merge_cursor_ + 1) % queues_.size();
    undefer(queue);
    consuming_ = true;
    consuming_rows_ = batch.rows;
    const double rate = run_.exchange().consume_rows_per_s;
    const double ns = rate > 0 ? static_cast<double>(batch.rows) / rate * 1e9 : 0;
    context_.cpu.consume += ns * 1e-9;
    context_.cpu_pool(host_).start(to_ns(ns), this, 0);
    return;
  }
  finished_ = true;  // every queue closed and drained
  run_.receiver_finished(*this);
}

void ReceiverInstance::on_event(std::uint64_t /*tag*/) {
  consuming_ = false;
  run_.stats().rows_delivered += consuming_rows_;
  consume_next();
}

}  // namespace exsim::sim
