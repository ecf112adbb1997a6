// Max-min fair rates of flows between hosts (SimGrid keeps its solver,
// kernel/lmm, apart from its network models in the same way). Each flow
// `from * hosts + to` crosses its source's outbound NIC and its destination's
// inbound NIC, every NIC of one capacity. A busy flow gets the largest rate
// such that no NIC is over capacity and no flow could go faster without
// slowing one that is slower (progressive filling). Nothing here knows time:
// the network (network.h) decides when rates are worked out and what a rate
// change does to the bytes in flight.
#ifndef EXSIM_SIM_RESOURCES_MAX_MIN_SHARES_H_
#define EXSIM_SIM_RESOURCES_MAX_MIN_SHARES_H_

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace exsim::sim {

class MaxMinShares {
 public:
  // `scan_limit`: up to this many busy flows, the busy NICs are listed by a
  // pass over the busy flows; beyond it, from positions kept as flows come
  // and go (see fill_rates()). Both list them in the same order.
  // Up to it too, a working-out fills only the flows connected (through
  // shared NICs) to those that came or went since the last: the others'
  // rates cannot have changed. Filling::kEveryFlow fills every busy flow each
  // time, as a reference for tests (the same rates and changes, bit for bit).
  enum class Filling { kChangedOnly, kEveryFlow };
  MaxMinShares(int hosts, double capacity, std::size_t scan_limit, Filling filling = Filling::kChangedOnly);

  // Flow `c` becomes busy. True when it is alone on both its NICs: its rate is
  // then the whole capacity at once and no other rate changes. False: the
  // rates must be worked out again (its rate is 0 until then).
  bool add(int c);
  // Flow `c` becomes idle (rate 0). True when other flows' rates change: it
  // shared a NIC with one.
  bool remove(int c);

  // Works out every busy flow's rate. Returns the flows whose rate changes;
  // each keeps its old rate() until commit(c).
  std::span<const int> work_out();
  void commit(int c) { flows_[c].rate = flows_[c].next_rate; }

  double rate(int c) const { return flows_[c].rate; }
  bool busy(int c) const { return slot_[c] >= 0; }
  // The busy flows, in the order they became busy (a flow that goes idle
  // gives its place to the last).
  const std::vector<int>& busy_flows() const { return active_; }

 private:
  // What working out the rates reads and writes of a flow, kept apart from the
  // rest: a large cluster's filling visits tens of thousands of flows in no
  // order, and at 32 bytes each the 65,280 of 256 hosts take 2 MiB, which the
  // last-level cache holds.
  struct Flow {
    int out_nic = 0, in_nic = 0;  // the source's outbound (h), the destination's inbound (hosts + h)
    std::uint64_t fixed_in_pass = 0;  // fill_rates: the pass (working-out) that fixed its rate
    double rate = 0;
    double next_rate = 0;
  };

  // The rates of `flows` (every busy flow, or a part a change reached) when
  // their NICs form stars; false, having written nothing, otherwise.
  bool star_rates(std::span<const int> flows);
  // Progressive filling, for any set: with `part`, of the flows on NICs marked
  // in this pass (part_flows_, with few busy), else of every busy flow.
  void fill_rates(bool part);
  // Marks the busy NICs connected to those touched since the last working out
  // (nic_seen_ == fill_pass_) and lists their flows in part_flows_; false,
  // listing none, to fill every busy flow.
  bool mark_changed_part();
  void list_busy_nic(int nic);  // fill_rates: a busy NIC takes part, at its full capacity
  void note_rate(int c);

  const int hosts_;
  const double capacity_;
  const std::size_t scan_limit_;
  const Filling filling_;
  std::vector<Flow> flows_;
  std::vector<int> slot_;  // position in active_, -1 when idle
  std::vector<int> active_;
  std::vector<std::vector<int>> nic_active_;  // busy flows through each NIC (out: h, in: hosts + h)
  int busy_nic_count_ = 0;                    // NICs that carry a busy flow
  std::vector<int> nic_first_;     // a busy NIC's first position in active_ among its flows ...
  bool nic_first_kept_ = false;    // ... when kept (see fill_rates)
  // Scratch for working out the rates.
  std::vector<double> nic_remaining_;
  std::vector<int> nic_unfixed_;   // zero outside fill_rates
  std::vector<double> nic_share_;  // nic_remaining_ / nic_unfixed_; infinite without unfixed flows
  std::vector<int> busy_nics_;
  std::uint64_t fill_pass_ = 0;  // the working-out: marks the NICs and flows it reached
  std::vector<std::uint64_t> busy_order_;
  std::vector<int> changed_;  // flows whose rate the working-out changed: the first changed_count_
  std::size_t changed_count_ = 0;
  // The NICs of flows that came or went since the last working out (whose
  // other flows' rates may change), and the pass that last found each NIC
  // connected to one of them.
  std::vector<int> touched_nics_;
  std::vector<std::uint64_t> nic_seen_;
  std::vector<int> seen_stack_;
  std::vector<int> part_flows_;  // the busy flows mark_changed_part reached
};

}  // namespace exsim::sim

#endif  // EXSIM_SIM_RESOURCES_MAX_MIN_SHARES_H_
