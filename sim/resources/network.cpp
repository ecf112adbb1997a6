#include "sim/resources/network.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

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
    // The smallest remaining / unfixed, compared without dividing.
    int bottleneck = -1;
    for (int nic : busy_nics_) {
      if (nic_unfixed_[nic] == 0) continue;
      if (bottleneck < 0 ||
          nic_remaining_[nic] * nic_unfixed_[bottleneck] < nic_remaining_[bottleneck] * nic_unfixed_[nic]) {
        bottleneck = nic;
      }
    }
    const double share = nic_remaining_[bottleneck] / nic_unfixed_[bottleneck];
    for (int c : nic_active_[bottleneck]) {
      Connection& conn = connections_[c];
      if (conn.fixed) continue;
      conn.fixed = true;
      conn.next_rate = share;
      const int out = conn.out_nic, in = conn.in_nic;
      nic_remaining_[out] -= share;
      nic_remaining_[in] -= share;
      --nic_unfixed_[out];
      --nic_unfixed_[in];
      --unfixed;
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
  conn.finish_at = conn.updated + std::max<SimTime>(0, static_cast<SimTime>(std::ceil(remaining / conn.rate - 1e-6)));
}

void Network::arm() {
  SimTime next = -1;
  for (int c : active_) {
    if (next < 0 || connections_[c].finish_at < next) next = connections_[c].finish_at;
  }
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
    int due = -1;
    for (int c : active_) {
      if (connections_[c].finish_at <= now && (due < 0 || c < due)) due = c;
    }
    if (due < 0) break;
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
