#include "sim/resources/network.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "models/rounding.h"

namespace exsim::sim {

Network::Network(Simulator& simulator, int hosts, double nic_bytes_per_ns)
    : simulator_(simulator),
      hosts_(hosts),
      capacity_(nic_bytes_per_ns),
      connections_(static_cast<std::size_t>(hosts) * hosts),
      nic_remaining_(2 * static_cast<std::size_t>(hosts)),
      nic_unfixed_(2 * static_cast<std::size_t>(hosts), 0),
      nic_active_(2 * static_cast<std::size_t>(hosts)) {
  // Each connection's NICs, worked out once: a division per use adds up.
  for (int from = 0; from < hosts; ++from) {
    for (int to = 0; to < hosts; ++to) {
      connections_[static_cast<std::size_t>(index(from, to))].out_nic = from;
      connections_[static_cast<std::size_t>(index(from, to))].in_nic = hosts + to;
    }
  }
}

void Network::send(int from, int to, double bytes, EventHandler* done, std::uint64_t tag) {
  if (from == to) throw std::logic_error("internal error: Network::send within one host");
  const int c = index(from, to);
  Connection& conn = connections_[c];
  conn.queue.push(Transfer{bytes, done, tag});
  if (conn.queue.size() == 1) {
    conn.remaining = bytes;
    conn.updated = simulator_.now();
    activate(c);
  }
}

void Network::activate(int c) {
  const int out = connections_[c].out_nic, in = connections_[c].in_nic;
  connections_[c].active_slot = static_cast<int>(active_.size());
  active_.push_back(c);
  nic_active_[out].push_back(c);
  nic_active_[in].push_back(c);
  if (nic_active_[out].size() == 1 && nic_active_[in].size() == 1) {
    // Alone on both NICs: it gets the full capacity and no other rate changes.
    connections_[c].rate = capacity_;
    schedule_front(c);
  } else {
    recompute_rates();
  }
  if (!in_dispatch_) arm();
}

void Network::deactivate(int c) {
  Connection& conn = connections_[c];
  const int slot = conn.active_slot;
  active_[slot] = active_.back();
  connections_[active_[slot]].active_slot = slot;
  active_.pop_back();
  conn.active_slot = -1;
  conn.rate = 0;
  const int out = conn.out_nic, in = conn.in_nic;
  for (int nic : {out, in}) {
    auto& list = nic_active_[nic];
    list.erase(std::find(list.begin(), list.end(), c));
  }
  // A connection that shared no NIC leaves everyone's rate as it was.
  if (!nic_active_[out].empty() || !nic_active_[in].empty()) recompute_rates();
  if (!in_dispatch_) arm();
}

void Network::recompute_rates() {
  // Progressive filling: repeatedly take the NIC with the smallest fair share
  // among its unfixed connections and fix those connections at that share.
  // Only NICs that carry an active connection take part; there are few.
  busy_nics_.clear();
  for (int c : active_) {
    connections_[c].fixed = false;
    for (int nic : {connections_[c].out_nic, connections_[c].in_nic}) {
      if (nic_unfixed_[nic] != 0) continue;  // listed already (idle NICs are left at zero)
      nic_unfixed_[nic] = static_cast<int>(nic_active_[nic].size());
      nic_remaining_[nic] = capacity_;
      busy_nics_.push_back(nic);
    }
  }
  std::size_t unfixed = active_.size();
  while (unfixed > 0) {
    // The smallest remaining / unfixed, compared without dividing; the first
    // such NIC wins ties. The best so far stays in registers: reloading it
    // through its index (to select without a branch) measured slower.
    int bottleneck = -1;
    double best_remaining = 1, best_unfixed = 0;  // none yet: any NIC with unfixed connections beats it
    for (int nic : busy_nics_) {
      const double remaining = nic_remaining_[nic], unfixed_here = nic_unfixed_[nic];
      if ((unfixed_here > 0) & (remaining * best_unfixed < best_remaining * unfixed_here)) {
        bottleneck = nic;
        best_remaining = remaining;
        best_unfixed = unfixed_here;
      }
    }
    const double share = best_remaining / best_unfixed;
    for (int c : nic_active_[bottleneck]) {
      // Fixed already through its other NIC: left as it is (adds and takes zero).
      Connection& conn = connections_[c];
      const int now_fixed = conn.fixed ? 0 : 1;
      conn.fixed = true;
      conn.next_rate = now_fixed ? share : conn.next_rate;
      const double taken = now_fixed ? share : 0.0;
      nic_remaining_[conn.out_nic] -= taken;
      nic_remaining_[conn.in_nic] -= taken;
      nic_unfixed_[conn.out_nic] -= now_fixed;
      nic_unfixed_[conn.in_nic] -= now_fixed;
      unfixed -= static_cast<std::size_t>(now_fixed);
    }
  }
  const SimTime now = simulator_.now();
  for (int c : active_) {
    Connection& conn = connections_[c];
    if (conn.rate == conn.next_rate) continue;
    conn.remaining -= conn.rate * static_cast<double>(now - conn.updated);
    conn.updated = now;
    conn.rate = conn.next_rate;
    schedule_front(c);
  }
}

void Network::schedule_front(int c) {
  Connection& conn = connections_[c];
  const double remaining = std::max(0.0, conn.remaining);
  conn.finish_at = conn.updated + std::max<SimTime>(0, ceil_to_int(remaining / conn.rate - 1e-6));
}

void Network::arm() {
  SimTime next = std::numeric_limits<SimTime>::max();
  for (int c : active_) next = std::min(next, connections_[c].finish_at);
  if (next == std::numeric_limits<SimTime>::max()) next = -1;  // nothing active
  if (next == armed_at_) return;
  armed_at_ = next;
  ++generation_;
  if (next >= 0) simulator_.at(std::max(next, simulator_.now()), this, generation_);
}

void Network::on_event(std::uint64_t generation) {
  if (generation != generation_) return;  // superseded: the next completion moved
  armed_at_ = -1;
  const SimTime now = simulator_.now();
  in_dispatch_ = true;
  // Complete every front transfer that is due, one at a time: each completion
  // may change the active set, and with it everyone's rate.
  while (true) {
    // The lowest-numbered due connection: a fixed order among equals.
    int due = std::numeric_limits<int>::max();
    for (int c : active_) due = std::min(due, connections_[c].finish_at <= now ? c : std::numeric_limits<int>::max());
    if (due == std::numeric_limits<int>::max()) break;
    Connection& conn = connections_[due];
    Transfer done = conn.queue.pop();
    conn.updated = now;
    if (conn.queue.empty()) {
      deactivate(due);
    } else {
      conn.remaining = conn.queue.front().bytes;
      schedule_front(due);  // same active set, same rate
    }
    done.done->on_event(done.tag);
  }
  in_dispatch_ = false;
  arm();
}
}  // namespace exsim::sim
