#include "transport/exchange/receiver_side.h"

#include "transport/exchange/trace_recorder.h"


#include <fmt/format.h>

#include "models/rules/sizing_policy.h"
#include "transport/net/thread_cpu.h"
#include "transport/rpc/messages.h"

namespace exsim::transport {
ReceiverSide::ReceiverSide(Host& host, const Exchange& exchange, const Policy& policy, RunStats& stats)
    : host_(host),
      exchange_(exchange),
      // Batches close at the 8 MiB cap or the policy's target, overshooting by at most one row.
      max_tuple_bytes_(static_cast<std::uint64_t>(std::max<Bytes>(kBatchHardCap, channel_target(policy.buffer, exchange.receivers.instances())) +
                                                  exchange.row.fixed_bytes + static_cast<Bytes>(exchange.row.varlen.max()) + 1)),
      policy_(policy),
      stats_(stats) {
  const bool merging = exchange.kind == PartitionKind::kMerge;
  const int senders = exchange.senders.instances();
  for (int r = 0; r < exchange.receivers.instances(); ++r) {
    if (exchange.receivers.host_of(r) != host.index()) continue;
    global_index_.push_back(r);
    auto instance = std::make_unique<Instance>();
    instance->queues.resize(merging ? static_cast<std::size_t>(senders) : 1);
    for (auto& q : instance->queues) {
      q.open_senders = merging ? 1 : senders;
      q.deferred_by_sender.assign(static_cast<std::size_t>(senders), 0);
    }
    instance->open_queues = static_cast<int>(instance->queues.size());
    instances_.push_back(std::move(instance));
  }
}

ReceiverSide::~ReceiverSide() {
  cancel();
  for (auto& i : instances_) {
    if (i->consumer.joinable()) i->consumer.join();
    // Calls still deferred when a run fails are dropped with it.
    for (auto& q : i->queues) q.calls.undefer(INT64_MAX, [this](Deferred* d, Bytes) { give_back(d); });
  }
}

void ReceiverSide::start() {
  for (std::size_t i = 0; i < instances_.size(); ++i) {
    if (stats_.trace) {
      instances_[i]->trace_tid = stats_.trace->track(fmt::format("{} receiver {}", stats_.trace_label, global_index_[i]));
    }
    instances_[i]->consumer = std::thread([this, i] { consume(static_cast<int>(i)); });
  }
}

Bytes ReceiverSide::limit(const Instance& instance) const {
  return exchange_.kind == PartitionKind::kMerge ? policy_.receiver_buffer / std::max(1, instance.open_queues)
                                                 : policy_.receiver_buffer;
}

void ReceiverSide::give_back(Deferred* deferred) {
  deferred->from.reset();  // let the connection go; the body keeps its capacity
  deferred_pool_.give_back(deferred);
}

RowBatch* ReceiverSide::decode(const char* body, std::size_t size, int instance) {
  const char* wire = body + CallAddress::kSize;
  const std::size_t wire_size = size - CallAddress::kSize;
  RowBatchHeader header;
  std::string error;
  const std::int64_t cpu_start = thread_cpu_ns();
  bool ok = wire_size >= RowBatchHeader::kSize &&
            RowBatchHeader::decode(wire, max_tuple_bytes_, header, error) &&
            header.wire_bytes() == wire_size;
  if (ok) {
    RowBatch* batch = batch_pool_.take();
    std::int64_t lz4_ns = 0;
    ok = decode_batch(header, wire + RowBatchHeader::kSize, wire + RowBatchHeader::kSize + 4ULL * header.rows, *batch,
                      error, &thread_cpu_ns, &lz4_ns);
    if (ok) {
      const std::int64_t spent = thread_cpu_ns() - cpu_start;
      charge(stats_.cpu_decompress, lz4_ns);
      charge(stats_.cpu_deserialize, spent - lz4_ns);
      if (host_.reactor().on_reactor_thread()) stats_.cpu_decode_on_reactor += spent;
      return batch;
    }
    batch_pool_.give_back(batch);
  }
  if (error.empty()) error = fmt::format("batch of {} bytes does not match its header", wire_size);
  const CallAddress address = CallAddress::decode(body);
  stats_.fail(fmt::format("host {}: bad batch from sender {} to receiver {}: {}", host_.index(), address.sender,
                          global_index_[static_cast<std::size_t>(instance)], error));
  return nullptr;
}

void ReceiverSide::answer(const std::shared_ptr<Connection>& from, std::uint64_t call_id, std::int64_t arrived_ns) {
  CallResult result;
  result.receiver_ns = steady_now_ns() - arrived_ns;
  host_.respond(from, call_id, result);
}

void ReceiverSide::on_call(const std::shared_ptr<Connection>& from, std::uint64_t call_id, const FrameHeader& header,
                           const char* body, std::int64_t arrived_ns) {
  const CallAddress address = CallAddress::decode(body);
  int local = -1;
  for (std::size_t i = 0; i < global_index_.size(); ++i) {
    if (global_index_[i] == static_cast<int>(address.receiver)) local = static_cast<int>(i);
  }
  if (local < 0 || address.sender >= static_cast<std::uint32_t>(exchange_.senders.instances())) {
    stats_.fail(fmt::format("host {}: call for receiver {} from sender {}, not here", host_.index(), address.receiver,
                            address.sender));
    return;
  }
  Instance& instance = *instances_[static_cast<std::size_t>(local)];
  const bool merging = exchange_.kind == PartitionKind::kMerge;
  Queue& queue = instance.queues[merging ? address.sender : 0];
  if (header.type == FrameType::kEndOfStream) {
    {
      std::lock_guard lock(instance.mutex);
      if (--queue.open_senders == 0 && --instance.open_queues == 0) instance.closed_at = std::chrono::steady_clock::now();
    }
    instance.changed.notify_all();
    answer(from, call_id, arrived_ns);
    return;
  }
  RowBatchHeader batch_header;
  std::string error;
  if (header.body_length < CallAddress::kSize + RowBatchHeader::kSize ||
      !RowBatchHeader::decode(body + CallAddress::kSize, max_tuple_bytes_, batch_header, error)) {
    stats_.fail(fmt::format("host {}: malformed batch from sender {}: {}", host_.index(), address.sender, error));
    return;
  }
  const Bytes bytes = static_cast<Bytes>(batch_header.tuple_bytes + 8ULL * batch_header.rows);
  Deferred* deferred = deferred_pool_.take();
  deferred->from = from;
  deferred->call_id = call_id;
  deferred->arrived_ns = arrived_ns;
  deferred->sender = address.sender;
  bool admitted;
  bool over_window = false;
  {
    std::lock_guard lock(instance.mutex);
    admitted = queue.calls.arrive(deferred, bytes, limit(instance));
    if (!admitted) {
      deferred->body.assign(body, body + header.body_length);  // keep the bytes, unanswered
      deferred->deferred_at = std::chrono::steady_clock::now();
      over_window = ++queue.deferred_by_sender[address.sender] > policy_.in_flight;
    }
  }
  if (over_window) {
    stats_.fail(fmt::format("host {}: sender {} has more calls waiting than its window of {} allows",
                            host_.index(), address.sender, policy_.in_flight));
    return;
  }
  if (!admitted) {
    ++stats_.deferred_rpcs;
    stats_.add_receiver_bytes(host_.index(), header.body_length);  // the payload waits in memory
    return;
  }
  stats_.add_receiver_bytes(host_.index(), bytes);
  give_back(deferred);
  RowBatch* batch = decode(body, header.body_length, local);
  if (!batch) return;
  {
    std::lock_guard lock(instance.mutex);
    queue.calls.enqueue({batch->rows(), bytes});
    queue.batches.push(batch);
  }
  instance.changed.notify_all();
  answer(from, call_id, arrived_ns);
}

void ReceiverSide::consume(int index) {
  const ThreadLedger ledger;
  Instance& instance = *instances_[static_cast<std::size_t>(index)];
  const bool merging = exchange_.kind == PartitionKind::kMerge;
  const double rate = exchange_.consume_rows_per_s;
  std::vector<Deferred*> undeferred;
  while (true) {
    RowBatch* batch = nullptr;
    Queue* from = nullptr;
    {
      std::unique_lock lock(instance.mutex);
      while (!batch) {
        if (stats_.failed) return;
        bool all_done = true;
        for (std::size_t tried = 0; tried < instance.queues.size() && !batch; ++tried) {
          Queue& q = instance.queues[merging ? instance.cursor : 0];
          if (q.calls.pop()) {
            batch = q.batches.pop();
            from = &q;
            if (merging) instance.cursor = (instance.cursor + 1) % instance.queues.size();
            break;
          }
          if (q.open_senders > 0 || !q.calls.drained()) {
            all_done = false;
            break;  // wait for this queue (a merge needs every sender's next rows)
          }
          if (merging) instance.cursor = (instance.cursor + 1) % instance.queues.size();
        }
        if (batch) break;
        if (all_done) {
          stats_.cpu_handoff += ledger.unstaged_ns();
          stats_.add_drain(std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() -
                                                                                instance.closed_at).count());
          instance.done = true;
          instance.finished.notify_all();
          return;
        }
        instance.changed.wait_for(lock, std::chrono::milliseconds(50));
      }
      stats_.add_receiver_bytes(host_.index(), -static_cast<std::int64_t>(batch->tuple_bytes() + 8ULL * batch->rows()));
      undeferred.clear();
      from->calls.undefer(limit(instance), [&](Deferred* d, Bytes bytes) {
        stats_.add_receiver_bytes(host_.index(), bytes - static_cast<std::int64_t>(d->body.size()));
        --from->deferred_by_sender[d->sender];
        stats_.held_ns += std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() -
                                                                             d->deferred_at).count();
        if (stats_.trace) stats_.trace->span(instance.trace_tid, "deferred", d->deferred_at, std::chrono::steady_clock::now());
        undeferred.push_back(d);
      });
      // Decoded under the lock, so that no later call of the same sender can be
      // queued (and answered) ahead of them.
      for (Deferred* d : undeferred) {
        RowBatch* b = decode(d->body.data(), d->body.size(), index);
        if (b) {
          from->calls.enqueue({b->rows(), static_cast<Bytes>(b->tuple_bytes() + 8ULL * b->rows())});
          from->batches.push(b);
        }
      }
    }
    for (Deferred* d : undeferred) {
      answer(d->from, d->call_id, d->arrived_ns);
      give_back(d);
    }
    {
      // The consumer reads the batch's rows, at consume_rows_per_s of CPU
      // (thread_cpu.h says why CPU and not sleep).
      CpuScope cpu(stats_.cpu_consume);
      std::uint64_t sum = 0;
      for (std::uint32_t r = 0; r < batch->rows(); ++r) {
        if (batch->offsets()[r] < batch->tuple_bytes()) sum += static_cast<unsigned char>(batch->data().data()[batch->offsets()[r]]);
      }
      consumed_checksum_ += sum;
      if (rate > 0) burn_thread_cpu_until(cpu.start_ns() + static_cast<std::int64_t>(batch->rows() / rate * 1e9));
    }
    stats_.rows_delivered += batch->rows();
    batch_pool_.give_back(batch);
  }
}

bool ReceiverSide::wait(std::chrono::steady_clock::time_point deadline) {
  for (auto& i : instances_) {
    std::unique_lock lock(i->mutex);
    // Woken when the instance is done; every 100 ms it looks for a failure
    // elsewhere, which sets stats_.failed without notifying.
    while (!i->done && !stats_.failed) {
      if (std::chrono::steady_clock::now() >= deadline) return false;
      i->finished.wait_for(lock, std::chrono::milliseconds(100));
    }
    if (!i->done) return false;
  }
  return true;
}

void ReceiverSide::cancel() {
  for (auto& i : instances_) {
    i->changed.notify_all();
    i->finished.notify_all();
  }
}

}  // namespace exsim::transport
