// NICs and connections. Each host has one NIC per direction of the same
// capacity. Each ordered host pair has one connection (KRPC keeps one datastream
// TCP connection per direction, docs/impala.md §8.1) whose transfers leave in
// FIFO order, the front one written completely before the next (§8.3).
// A transfer is delivered a fixed delay after its last byte has left (the
// pair's delivery delay: the wire, half the RTT and whatever the caller adds).
//
// Connections with queued bytes share the NICs max-min fairly (the solver is
// max_min_shares.h): each busy connection crosses its source's outbound NIC and
// its destination's inbound NIC. Rates change only when a connection becomes
// busy or idle, and only those of connections it shares NICs with, directly or
// through others.
//
// Completions are settled lazily. Between two sends the NICs evolve on their
// own, and nobody sees a transfer's last byte leave until it is delivered,
// a delivery delay later. So the network settles every completion due when
// the next send comes (each at its own time, with the arithmetic an event at
// that time would do; a completion due in the send's own nanosecond always
// comes first), and keeps one backstop event at the earliest completion plus
// the shortest delivery delay, the first moment at which a delivery could be
// due. Deliveries then wait in delay lines. With delays of tens of
// microseconds and sends microseconds apart, almost no completion needs an
// event of its own: this took a fifth of the simulator's events.
// Same-host transfers never reach a NIC; callers do not send them here.
#ifndef EXSIM_SIM_RESOURCES_NETWORK_H_
#define EXSIM_SIM_RESOURCES_NETWORK_H_

#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <utility>
#include <vector>

#include "models/base/ring_queue.h"
#include "sim/engine/delay_line.h"
#include "sim/engine/simulator.h"
#include "sim/resources/max_min_shares.h"
#include "sim/resources/min_tree.h"

namespace exsim::sim {

class Network final : public EventHandler {
 public:
  // `nic_bytes_per_ns`: capacity of every NIC, each direction. Delivery delays
  // start at zero.
  // `scan_limit`: up to this many busy connections, the earliest completion
  // is found again by a scan and the busy NICs are listed by a pass over the
  // busy connections; beyond it, from what is kept as connections come and go
  // (see earliest() and max_min_shares.h). Tests check that the two ways agree.
  static constexpr std::size_t kScanLimit = 64;
  Network(Simulator& simulator, int hosts, double nic_bytes_per_ns, std::size_t scan_limit = kScanLimit);
  Network(const Network&) = delete;
  Network& operator=(const Network&) = delete;

  // The delay from a transfer's last byte leaving `from` to its delivery at
  // `to`. REQUIRES: nothing sent yet.
  void set_delivery_delay(int from, int to, SimTime delay);

  // Queues `bytes` from `from` to `to` (distinct hosts) behind the connection's
  // earlier transfers; done->on_event(tag) when delivered: when its last byte
  // has left, plus the pair's delivery delay.
  void send(int from, int to, double bytes, EventHandler* done, std::uint64_t tag);

  // A connection's rate now, bytes per ns (0 when idle); settles what is due first.
  double rate(int from, int to);
  int hosts() const { return hosts_; }

  // The backstop: settles what is due (tag: the generation it was armed in).
  void on_event(std::uint64_t generation) override;

 private:
  struct Transfer {
    double bytes;
    EventHandler* done;
    std::uint64_t tag;
  };
  struct Connection {
    double remaining = 0;  // bytes of the front transfer not yet sent, as of `updated`
    SimTime updated = 0;
    SimTime finish_at = 0;  // when the front transfer's last byte leaves, at the current rate
    bool moved = false;     // its entry in finish_tree_ (finish_at, kNever when idle) is out of date
    RingQueue<Transfer> queue;
    DelayLine* delivery = nullptr;
  };

  int index(int from, int to) const { return from * hosts_ + to; }
  // Completes, in order, every front transfer whose last byte leaves by `until`.
  void settle(SimTime until);
  // Connections that become busy or idle at one instant share one working
  // out of the rates (a sender's end-of-stream to every channel is hundreds
  // of sends at once): the rates go stale at the change and are worked out
  // when something needs them, no later than the next change at a later time.
  void set_changed(SimTime at);
  void flush();
  void activate(int c, SimTime at);
  void deactivate(int c, SimTime at);
  // Works out every busy connection's max-min rate and applies it at `at`.
  void recompute_rates(SimTime at);
  void schedule_front(int c);
  // The earliest completion and its connection (the lowest-numbered among
  // equals; kNever and -1 if none), kept as finish times move rather than
  // found again on each send. When the earliest one moves later it is found
  // again: by a scan of the busy connections when they are few, else from a
  // tournament tree. A 128-host cluster at MT_DOP 8 has thousands busy at
  // its end-of-stream, when a scan per completion took most of a minute.
  std::pair<SimTime, int> earliest();
  void finish_moved(int c);
  void arm();  // the backstop, no later than the earliest completion plus the shortest delay
  SimTime shortest_delay();

  Simulator& simulator_;
  const int hosts_;
  const std::size_t scan_limit_;
  std::vector<Connection> connections_;
  MaxMinShares shares_;  // by connection
  static constexpr int kUnknown = -2;
  int earliest_ = -1;  // see earliest(); kUnknown: to be found again
  SimTime earliest_at_ = std::numeric_limits<SimTime>::max();
  MinTree finish_tree_;      // the busy connections' finish times (kNever for the rest) ...
  std::vector<int> moved_;   // ... except these, moved since
  std::map<SimTime, std::unique_ptr<DelayLine>> lines_;  // one per distinct delivery delay
  SimTime shortest_delay_ = -1;  // over all host pairs; -1: to be worked out
  std::uint64_t generation_ = 0;
  SimTime armed_at_ = -1;  // the live backstop, -1 if none
  bool stale_ = false;     // rates not worked out since connections came or went at stale_since_
  SimTime stale_since_ = 0;
  SimTime settled_until_ = -1;  // completions up to here are settled and no finish time has moved since
};

}  // namespace exsim::sim

#endif  // EXSIM_SIM_RESOURCES_NETWORK_H_
