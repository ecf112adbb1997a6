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
      nic_unfixed_(2 * static_cast<std::size_t>(hosts)) {}

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
  connections_[c].active_slot = static_cast<int>(active_.size());
  active_.push_back(c);
  recompute_rates();
}

void Network::deactivate(int c) {
  Connection& conn = connections_[c];
  const int slot = conn.active_slot;
  active_[slot] = active_.back();
  connections_[active_[slot]].active_slot = slot;
  active_.pop_back();
  conn.active_slot = -1;
  conn.rate = 0;
  ++conn.generation;  // any pending completion is stale
  recompute_rates();
}

void Network::recompute_rates() {
  // Progressive filling: repeatedly find the NIC with the smallest fair share
  // among its unfixed connections, and fix those connections at that share.
  std::fill(nic_remaining_.begin(), nic_remaining_.end(), capacity_);
  std::fill(nic_unfixed_.begin(), nic_unfixed_.end(), 0);
  new_rate_.assign(active_.size(), -1.0);
  for (int c : active_) {
    ++nic_unfixed_[c / hosts_];               // outbound NIC of the source
    ++nic_unfixed_[hosts_ + c % hosts_];      // inbound NIC of the destination
  }
  std::size_t unfixed = active_.size();
  while (unfixed > 0) {
    int bottleneck = -1;
    double share = 0;
    for (int nic = 0; nic < 2 * hosts_; ++nic) {
      if (nic_unfixed_[nic] == 0) continue;
      double s = nic_remaining_[nic] / nic_unfixed_[nic];
      if (bottleneck < 0 || s < share) {
        bottleneck = nic;
        share = s;
      }
    }
    for (std::size_t i = 0; i < active_.size(); ++i) {
      if (new_rate_[i] >= 0) continue;
      const int c = active_[i];
      const int out = c / hosts_, in = hosts_ + c % hosts_;
      if (out != bottleneck && in != bottleneck) continue;
      new_rate_[i] = share;
      nic_remaining_[out] -= share;
      nic_remaining_[in] -= share;
      --nic_unfixed_[out];
      --nic_unfixed_[in];
      --unfixed;
    }
  }
  const SimTime now = simulator_.now();
  for (std::size_t i = 0; i < active_.size(); ++i) {
    Connection& conn = connections_[active_[i]];
    if (conn.rate == new_rate_[i]) continue;
    conn.remaining -= conn.rate * static_cast<double>(now - conn.updated);
    conn.updated = now;
    conn.rate = new_rate_[i];
    schedule_front(active_[i]);
  }
}

void Network::schedule_front(int c) {
  Connection& conn = connections_[c];
  ++conn.generation;
  const double remaining = std::max(0.0, conn.remaining);
  const auto delay = static_cast<SimTime>(std::ceil(remaining / conn.rate - 1e-6));
  simulator_.at(conn.updated + std::max<SimTime>(0, delay), this,
                (static_cast<std::uint64_t>(c) << 32) | conn.generation);
}

void Network::on_event(std::uint64_t tag) {
  const int c = static_cast<int>(tag >> 32);
  Connection& conn = connections_[c];
  if (static_cast<std::uint32_t>(tag) != conn.generation) return;  // rate changed since
  Transfer done = conn.queue.pop();
  conn.updated = simulator_.now();
  if (conn.queue.empty()) {
    deactivate(c);
  } else {
    conn.remaining = conn.queue.front().bytes;
    schedule_front(c);  // same active set, same rate
  }
  done.done->on_event(done.tag);
}

}  // namespace exsim::sim
