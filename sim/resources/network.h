// NICs and connections. Each host has one NIC per direction of the same
// capacity. Each ordered host pair has one connection (KRPC keeps one datastream
// TCP connection per direction, reference section 8.1) whose transfers leave in
// FIFO order, the front one written completely before the next (section 8.3).
//
// Connections with queued bytes share the NICs max-min fairly: each active
// connection crosses its source's outbound NIC and its destination's inbound
// NIC, and gets the largest rate such that no NIC is over capacity and no
// connection could go faster without slowing one that is slower (progressive
// filling). Rates change only when a connection becomes busy or idle. The
// network keeps one live event, its earliest completion (one it supersedes stays
// queued and is skipped when it comes up).
// Same-host transfers never reach a NIC; callers do not send them here.
#ifndef EXSIM_SIM_RESOURCES_NETWORK_H_
#define EXSIM_SIM_RESOURCES_NETWORK_H_

#include <cstdint>
#include <vector>

#include "sim/engine/simulator.h"
#include "models/ring_queue.h"

namespace exsim::sim {

class Network final : public EventHandler {
 public:
  // `nic_bytes_per_ns`: capacity of every NIC, each direction.
  Network(Simulator& simulator, int hosts, double nic_bytes_per_ns);
  Network(const Network&) = delete;
  Network& operator=(const Network&) = delete;

  // Queues `bytes` from `from` to `to` (distinct hosts) behind the connection's
  // earlier transfers; done->on_event(tag) when its last byte has left.
  void send(int from, int to, double bytes, EventHandler* done, std::uint64_t tag);

  // Current rate of a connection, bytes per ns (0 when idle).
  double rate(int from, int to) const { return connections_[index(from, to)].rate; }
  int hosts() const { return hosts_; }

  void on_event(std::uint64_t tag) override;

 private:
  struct Transfer {
    double bytes;
    EventHandler* done;
    std::uint64_t tag;
  };
  struct Connection {
    RingQueue<Transfer> queue;
    double remaining = 0;  // bytes of the front transfer not yet sent, as of `updated`
    double rate = 0;
    SimTime updated = 0;
    SimTime finish_at = 0;  // when the front transfer's last byte leaves, at the current rate
    int out_nic = 0, in_nic = 0;  // its NICs: the source's outbound (h), the destination's inbound (hosts + h)
    int active_slot = -1;  // position in active_, -1 when idle
    bool fixed = false;    // recompute_rates scratch
    double next_rate = 0;  // recompute_rates scratch
  };

  int index(int from, int to) const { return from * hosts_ + to; }
  void activate(int c);
  void deactivate(int c);
  void recompute_rates();
  void schedule_front(int c);
  void arm();  // one scheduler event, for the earliest finish among active connections

  Simulator& simulator_;
  const int hosts_;
  const double capacity_;
  std::vector<Connection> connections_;
  std::vector<int> active_;
  std::uint64_t generation_ = 0;
  SimTime armed_at_ = -1;
  bool in_dispatch_ = false;
  // Scratch for recompute_rates.
  std::vector<double> nic_remaining_;
  std::vector<int> nic_unfixed_;  // zero outside recompute_rates
  std::vector<int> busy_nics_;
  std::vector<std::vector<int>> nic_active_;  // active connections through each NIC (out: h, in: hosts + h)
};

}  // namespace exsim::sim

#endif  // EXSIM_SIM_RESOURCES_NETWORK_H_
