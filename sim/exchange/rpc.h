// One TransmitData or EndDataStream call in flight, and the pool that recycles
// them so a run allocates per channel, never per RPC.
#ifndef EXSIM_SIM_EXCHANGE_RPC_H_
#define EXSIM_SIM_EXCHANGE_RPC_H_

#include <cstdint>
#include <memory>
#include <new>
#include <type_traits>
#include <vector>

#include "models/base/size.h"
#include "sim/engine/scheduler.h"

namespace exsim::sim {

class SenderInstance;
class ReceiverInstance;

// A call's life as its sender waited on it, part by part in the order lived
// (models/results/bound.h gives each to what bounded it).
struct CallParts {
  SimTime transfer = 0;     // its bytes through the NICs (sharing them with other calls)
  SimTime to_receiver = 0;  // half the RTT and the RPC layer's latency
  SimTime receiver = 0;     // waiting for a service thread, and the receiver's work
  SimTime held = 0;         // deferred: the receiver's queue full until its consumer took a batch
  SimTime back = 0;         // half the RTT of the response
  // As Impala's sender counts a call: the receiver's time from its arrival to
  // its response (RpcRecvrTime), and the rest of the call (RpcNetworkTime).
  SimTime receiver_time() const { return receiver + held; }
  SimTime network_time() const { return transfer + to_receiver + back; }
};

struct Rpc {
  // Where the call is in its life: sender -> wire -> receiver (the response is
  // not an event: the sender is told when it arrives).
  enum class Stage : std::uint8_t { kArriving, kReceiverWork };

  // Millions may be in flight at once (every channel's end of stream): the
  // small fields are packed together.
  Stage stage = Stage::kArriving;
  bool eos = false;
  bool compressed = false;
  bool on_service_thread = false;  // holds one of its receiver host's service threads
  int channel = 0;                 // sender's channel index
  SenderInstance* sender = nullptr;
  ReceiverInstance* receiver = nullptr;
  int from_host = 0, to_host = 0;
  int together = 1;  // its sender's calls on its connection with it, itself included (SenderInstance::call_cpu)
  bool waited = false;  // for one of its receiver host's service threads (CostRates::received_call_ns)
  std::int64_t rows = 0;
  Bytes tuple_bytes = 0;   // uncompressed tuple data
  Bytes wire_bytes = 0;    // payload on the wire incl. offsets and framing
  SimTime issued = 0;      // handed to the transport
  SimTime arrived = 0;     // reached the receiver
  SimTime deferred = -1;   // held back by the receiver since, -1 if not
  SimTime held_for = 0;    // how long it was held back

  Bytes deserialized_bytes() const { return tuple_bytes + 8 * rows; }  // row-batch.cc:300-303
};
static_assert(sizeof(Rpc) <= 96);

class RpcPool {
 public:
  Rpc* acquire() {
    if (!free_) add_chunk();
    Slot* slot = free_;
    free_ = slot->next;
    return new (&slot->rpc) Rpc{};
  }
  // A union and its first member share their address.
  void release(Rpc* rpc) {
    Slot* slot = reinterpret_cast<Slot*>(rpc);
    slot->next = free_;
    free_ = slot;
  }
  std::size_t allocated() const { return chunks_.size() * kChunk; }

 private:
  // A free record holds the next free one, so the free list takes no memory
  // of its own (millions of records at the end of a large run's streams).
  union Slot {
    Slot* next;
    Rpc rpc;
    Slot() : next(nullptr) {}
  };
  static_assert(std::is_trivially_destructible_v<Rpc>);
  static constexpr std::size_t kChunk = 256;

  void add_chunk() {
    chunks_.push_back(std::make_unique<Slot[]>(kChunk));
    for (std::size_t i = 0; i < kChunk; ++i) {
      chunks_.back()[i].next = free_;
      free_ = &chunks_.back()[i];
    }
  }

  std::vector<std::unique_ptr<Slot[]>> chunks_;
  Slot* free_ = nullptr;
};

}  // namespace exsim::sim

#endif  // EXSIM_SIM_EXCHANGE_RPC_H_
