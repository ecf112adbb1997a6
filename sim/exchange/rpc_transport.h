// Moves RPCs between sender and receiver instances: the sender's NIC and the
// wire, half the RTT plus the software latency to arrive, receiver work on the
// receiver host's cores, half the RTT back with the response (docs/impala.md
// §§2.2 and 8.5). Records each call's network time, which is, as in
// Impala (§5.9), the whole call minus the time the receiver held it.
//
// An arriving call waits for one of its host's service threads
// (CostProfile::service_threads), in arrival order, and holds it through the
// receiver's admission check and, if admitted, its deserialization, to the
// response (§§5.6-5.7). A deferred call lets it go: it is deserialized
// later on another pool (Impala's 16 deserialization threads).
#ifndef EXSIM_SIM_EXCHANGE_RPC_TRANSPORT_H_
#define EXSIM_SIM_EXCHANGE_RPC_TRANSPORT_H_

#include <map>
#include <memory>
#include <vector>

#include "models/base/ring_queue.h"
#include "sim/engine/delay_line.h"
#include "sim/exchange/model_context.h"
#include "sim/exchange/rpc.h"

namespace exsim::sim {

class RpcTransport final : public EventHandler {
 public:
  explicit RpcTransport(ModelContext& context);

  Rpc* new_rpc() { return pool_.acquire(); }
  // Sends a filled-in call. Cross-host calls queue on the host pair's connection.
  void issue(Rpc* rpc);
  // Receiver-side CPU for the call, on its service thread if it holds one, else
  // on the deserialization pool.
  void start_receiver_work(Rpc* rpc, SimTime work);
  // The receiver deferred the call: its service thread takes the next call.
  void leave_service_thread(Rpc* rpc);
  // The receiver accepted the call: the response travels back, and the sender
  // learns now when it will arrive (SenderInstance::on_response_time); the call's
  // record is free from here.
  void respond(Rpc* rpc);

  std::size_t rpcs_allocated() const { return pool_.allocated(); }
  // Calls issued on the connection from `from` to `to` (one per ordered host
  // pair; a host's calls to itself, through its own RPC port, count as one
  // more) and not yet answered: those that go out in one write and come back
  // in one read, sharing their system calls and wake-ups (CostRates::call_ns).
  // Calls on other connections share none: each socket's reads and writes are
  // its own (docs/simulator.md, "An RPC").
  int calls_on_connection(int from, int to) const {
    return on_connection_[static_cast<std::size_t>(from * hosts_ + to)];
  }

  void on_event(std::uint64_t tag) override;

 private:
  static std::uint64_t tag_of(Rpc* rpc) { return reinterpret_cast<std::uint64_t>(rpc); }
  // Hands the call to the receiver on a service thread of its host, now or when one is free.
  void take_service_thread(Rpc* rpc);
  void serve(Rpc* rpc);
  void free_service_thread(int host);

  // Per host: service threads free, and the calls waiting for one.
  struct ServiceThreads {
    int free = 0;
    RingQueue<Rpc*> waiting;
  };

  ModelContext& context_;
  const int hosts_;
  RpcPool pool_;
  // A request's arrival after it is sent within a host (a line per distinct
  // delay), or (across hosts, by the network) after its last byte has left:
  // half the RTT plus the software latency.
  std::map<SimTime, std::unique_ptr<DelayLine>> lines_;
  std::vector<DelayLine*> local_arrival_;  // per host
  std::vector<SimTime> response_delay_;    // half the RTT
  std::vector<SimTime> arrival_delay_;     // half the RTT plus the software latency
  std::vector<int> on_connection_;         // calls_on_connection, per ordered host pair
  std::vector<ServiceThreads> service_;
};

}  // namespace exsim::sim

#endif  // EXSIM_SIM_EXCHANGE_RPC_TRANSPORT_H_
