#include "sim/resources/network.h"

#include <algorithm>
#include <limits>
#include <stdexcept>

#include "models/base/rounding.h"

namespace exsim::sim {

namespace {
constexpr SimTime kNever = std::numeric_limits<SimTime>::max();
static_assert(kNever == MinTree::kNone, "an idle connection's finish is the tree's empty key");
constexpr double kNoShare = std::numeric_limits<double>::infinity();  // a NIC with no unfixed connection

// The first of `nics` whose share is the smallest (shares none NaN; `nics`
// not empty). Past a few NICs, four running minima, each over every fourth
// NIC, so that the comparisons do not wait on one another: a large cluster's
// filling spends much of its time here, tens of rounds over hundreds of busy
// NICs. Minima are exact, so any order finds the same smallest share, and the
// first NIC at it is then found by a second pass. (Of +0 and -0, equal, the
// first is taken, as a single running std::min would.)
int first_at_min(const std::vector<int>& nics, const std::vector<double>& share) {
  const std::size_t n = nics.size();
  double least = kNoShare;
  if (n < 16) {
    for (int nic : nics) least = std::min(least, share[nic]);
  } else {
    double m0 = kNoShare, m1 = kNoShare, m2 = kNoShare, m3 = kNoShare;
    std::size_t i = 0;
    for (; i + 4 <= n; i += 4) {
      m0 = std::min(m0, share[nics[i]]);
      m1 = std::min(m1, share[nics[i + 1]]);
      m2 = std::min(m2, share[nics[i + 2]]);
      m3 = std::min(m3, share[nics[i + 3]]);
    }
    for (; i < n; ++i) m0 = std::min(m0, share[nics[i]]);
    least = std::min(std::min(m0, m1), std::min(m2, m3));
  }
  std::size_t first = 0;
  while (share[nics[first]] != least) ++first;
  return nics[first];
}
}  // namespace

Network::Network(Simulator& simulator, int hosts, double nic_bytes_per_ns, std::size_t scan_limit)
    : simulator_(simulator),
      hosts_(hosts),
      capacity_(nic_bytes_per_ns),
      scan_limit_(scan_limit),
      connections_(static_cast<std::size_t>(hosts) * hosts),
      shares_(static_cast<std::size_t>(hosts) * hosts),
      finish_tree_(hosts * hosts),
      nic_remaining_(2 * static_cast<std::size_t>(hosts)),
      nic_unfixed_(2 * static_cast<std::size_t>(hosts), 0),
      nic_share_(2 * static_cast<std::size_t>(hosts), kNoShare),
      nic_active_(2 * static_cast<std::size_t>(hosts)),
      nic_first_(2 * static_cast<std::size_t>(hosts), 0),
      changed_(static_cast<std::size_t>(hosts) * hosts) {
  // Each connection's NICs, worked out once: a division per use adds up.
  for (int from = 0; from < hosts; ++from) {
    for (int to = 0; to < hosts; ++to) {
      shares_[static_cast<std::size_t>(index(from, to))].out_nic = from;
      shares_[static_cast<std::size_t>(index(from, to))].in_nic = hosts + to;
    }
  }
  auto& undelayed = lines_[0];
  undelayed = std::make_unique<DelayLine>(simulator_, 0);
  for (auto& conn : connections_) conn.delivery = undelayed.get();
}

void Network::set_delivery_delay(int from, int to, SimTime delay) {
  if (from == to || delay < 0) throw std::logic_error("internal error: Network::set_delivery_delay");
  auto& line = lines_[delay];
  if (!line) line = std::make_unique<DelayLine>(simulator_, delay);
  connections_[static_cast<std::size_t>(index(from, to))].delivery = line.get();
  shortest_delay_ = -1;  // worked out again when first needed: a scan per call would make setup O(hosts^4)
}

SimTime Network::shortest_delay() {
  if (shortest_delay_ < 0) {
    shortest_delay_ = kNever;
    for (int from = 0; from < hosts_; ++from) {
      for (int to = 0; to < hosts_; ++to) {
        if (from != to) shortest_delay_ = std::min(shortest_delay_, connections_[index(from, to)].delivery->delay());
      }
    }
  }
  return shortest_delay_;
}

void Network::send(int from, int to, double bytes, EventHandler* done, std::uint64_t tag) {
  if (from == to) throw std::logic_error("internal error: Network::send within one host");
  const SimTime now = simulator_.now();
  settle(now);  // the rates of this moment: completions due by now come first
  const int c = index(from, to);
  Connection& conn = connections_[c];
  conn.queue.push(Transfer{bytes, done, tag});
  if (conn.queue.size() == 1) {
    conn.remaining = bytes;
    conn.updated = now;
    activate(c, now);
  }
  arm();
}

double Network::rate(int from, int to) {
  flush();
  settle(simulator_.now());
  arm();
  return shares_[index(from, to)].rate;
}

void Network::flush() {
  if (!stale_) return;
  stale_ = false;
  settled_until_ = -1;  // finish times move
  recompute_rates(stale_since_);
}

void Network::set_changed(SimTime at) {
  stale_ = true;
  stale_since_ = at;
}

void Network::settle(SimTime until) {
  // Settled already at this instant: since then connections only came and
  // went at it, which moves no finish time at or before it (nor can the rates
  // have gone stale before it).
  if (settled_until_ == until) return;
  while (true) {
    // The earliest completion; the lowest-numbered connection among equals.
    // Finish times not yet moved by changes at `until` itself are good for
    // completions up to it; changes before it move them.
    if (stale_ && stale_since_ < until) flush();
    const auto [at, due] = earliest();
    if (at > until) break;
    Connection& conn = connections_[due];
    const Transfer done = conn.queue.pop();
    // Not in the past: the backstop fires before any delivery can be due.
    conn.delivery->schedule_at(at + conn.delivery->delay(), done.done, done.tag);
    conn.updated = at;
    if (conn.queue.empty()) {
      deactivate(due, at);
    } else {
      conn.remaining = conn.queue.front().bytes;
      schedule_front(due);  // same active set, same rate
    }
  }
  settled_until_ = until;
}

std::pair<SimTime, int> Network::earliest() {
  if (earliest_ != kUnknown) return {earliest_at_, earliest_};
  earliest_at_ = kNever;
  earliest_ = -1;
  if (active_.size() <= scan_limit_) {
    for (int c : active_) {
      const SimTime finish = connections_[c].finish_at;
      const bool first = finish < earliest_at_ || (finish == earliest_at_ && c < earliest_);
      earliest_at_ = first ? finish : earliest_at_;
      earliest_ = first ? c : earliest_;
    }
  } else {
    // The finish times that moved since the tree last saw them go in; the
    // tree's top is the earliest, the lowest-numbered among equals.
    for (int c : moved_) {
      Connection& conn = connections_[c];
      finish_tree_.set(c, conn.active_slot >= 0 ? conn.finish_at : kNever);
      conn.moved = false;
    }
    moved_.clear();
    const MinTree::Entry first = finish_tree_.top();
    if (first.key != kNever) {
      earliest_at_ = first.key;
      earliest_ = first.slot;
    }
  }
  return {earliest_at_, earliest_};
}

void Network::finish_moved(int c) {
  Connection& conn = connections_[c];
  if (!conn.moved) {
    conn.moved = true;
    moved_.push_back(c);
  }
  if (earliest_ == kUnknown || conn.active_slot < 0) return;
  const SimTime finish = conn.finish_at;
  if (c == earliest_) {
    if (finish > earliest_at_) earliest_ = kUnknown;  // another may come first now
    earliest_at_ = finish;
  } else if (finish < earliest_at_ || (finish == earliest_at_ && c < earliest_)) {
    earliest_at_ = finish;
    earliest_ = c;
  }
}

void Network::activate(int c, SimTime at) {
  if (stale_ && stale_since_ != at) flush();  // the rates before this change
  const int out = shares_[c].out_nic, in = shares_[c].in_nic;
  connections_[c].active_slot = static_cast<int>(active_.size());
  active_.push_back(c);
  nic_active_[out].push_back(c);
  nic_active_[in].push_back(c);
  for (int nic : {out, in}) {
    if (nic_active_[nic].size() > 1) continue;
    ++busy_nic_count_;
    nic_first_[nic] = connections_[c].active_slot;  // last in the list: first only on an idle NIC
  }
  if (nic_active_[out].size() == 1 && nic_active_[in].size() == 1) {
    // Alone on both NICs: it gets the full capacity and no other rate changes.
    shares_[c].rate = capacity_;
    schedule_front(c);
  } else {
    // Not yet known: it has no rate until the rates are worked out. (Idle,
    // it was kNever already; marked all the same, as every write is.)
    connections_[c].finish_at = kNever;
    finish_moved(c);
    set_changed(at);
  }
}

void Network::deactivate(int c, SimTime at) {
  if (stale_ && stale_since_ != at) flush();
  Connection& conn = connections_[c];
  const int slot = conn.active_slot;
  const int moving = active_.back();  // the last busy connection takes its place in the list
  active_[slot] = moving;
  connections_[moving].active_slot = slot;
  active_.pop_back();
  conn.active_slot = -1;
  shares_[c].rate = 0;
  if (c == earliest_) earliest_ = kUnknown;
  finish_moved(c);
  if (nic_first_kept_ && moving != c) {
    for (int nic : {shares_[moving].out_nic, shares_[moving].in_nic}) {
      nic_first_[nic] = std::min(nic_first_[nic], slot);
    }
  }
  const int out = shares_[c].out_nic, in = shares_[c].in_nic;
  for (int nic : {out, in}) {
    auto& list = nic_active_[nic];
    list.erase(std::find(list.begin(), list.end(), c));
    if (list.empty()) {
      --busy_nic_count_;
    } else if (nic_first_kept_ && nic_first_[nic] == slot && shares_[moving].out_nic != nic &&
               shares_[moving].in_nic != nic) {
      // It was the NIC's first in the list, and what took its place is not on
      // it. (Last in the list itself, it was first only alone on the NIC.)
      int first = std::numeric_limits<int>::max();
      for (int other : list) first = std::min(first, connections_[other].active_slot);
      nic_first_[nic] = first;
    }
  }
  if (active_.empty()) nic_first_kept_ = false;  // kept again when many are busy
  // A connection that shared no NIC leaves everyone's rate as it was.
  if (!nic_active_[out].empty() || !nic_active_[in].empty()) set_changed(at);
}

void Network::recompute_rates(SimTime at) {
  changed_count_ = 0;
  if (!star_rates()) fill_rates();
  for (std::size_t i = 0; i < changed_count_; ++i) {
    const int c = changed_[i];
    Connection& conn = connections_[c];
    Share& share = shares_[c];
    conn.remaining -= share.rate * static_cast<double>(at - conn.updated);
    conn.updated = at;
    share.rate = share.next_rate;
    schedule_front(c);
  }
}

// Lists `c` as changed if its new rate differs (without a branch: which
// rates change is anyone's guess).
void Network::note_rate(int c) {
  changed_[changed_count_] = c;
  changed_count_ += shares_[c].next_rate != shares_[c].rate ? 1 : 0;
}

bool Network::star_rates() {
  // When every busy connection has one of its NICs to itself, the busy NICs
  // form stars: a NIC shared by k connections, each alone on its other NIC.
  // Progressive filling then fixes each star's connections at capacity / k in
  // one round (a NIC of its own offers the whole capacity, more than any
  // shared one), which is this division exactly. In the benchmark, most
  // workings-out are of such sets (a few busy connections among many NICs).
  // Each connection of a star has a NIC of its own, and each star one more
  // (its centre): with no more busy NICs than connections, there are none.
  if (static_cast<int>(active_.size()) >= busy_nic_count_) return false;
  bool stars = true;
  for (int c : active_) {
    Share& conn = shares_[c];
    const std::size_t out = nic_active_[conn.out_nic].size(), in = nic_active_[conn.in_nic].size();
    stars &= std::min(out, in) == 1;
    conn.next_rate = capacity_ / static_cast<int>(std::max(out, in));
    note_rate(c);
  }
  return stars;
}

void Network::list_busy_nic(int nic) {
  nic_unfixed_[nic] = static_cast<int>(nic_active_[nic].size());
  nic_remaining_[nic] = capacity_;
  nic_share_[nic] = capacity_ / nic_unfixed_[nic];
  busy_nics_.push_back(nic);
}

void Network::fill_rates() {
  // Progressive filling: repeatedly take the NIC with the smallest fair share
  // among its unfixed connections and fix those connections at that share.
  // Only NICs that carry an active connection take part, listed in the order
  // the active connections first reach them; that order breaks ties. A
  // connection counts as unfixed until this pass's number is on it, so that
  // with many busy the setup need not visit every busy connection. (star_rates
  // may have noted changed rates before giving up: they are noted again.)
  changed_count_ = 0;
  ++fill_pass_;
  busy_nics_.clear();
  if (active_.size() <= scan_limit_) {
    for (int c : active_) {
      for (int nic : {shares_[c].out_nic, shares_[c].in_nic}) {
        if (nic_unfixed_[nic] == 0) list_busy_nic(nic);  // not listed yet (idle NICs are left at zero)
      }
    }
  } else {
    // The busy NICs in that order: by the position of their first connection in
    // the list, an outbound NIC before the inbound one of the same connection.
    // Those positions are kept as connections come and go from the first time
    // many are busy (a small set lists its NICs by the loop above, and the
    // benchmark measured the bookkeeping), until none is.
    if (!nic_first_kept_) {
      std::fill(nic_first_.begin(), nic_first_.end(), std::numeric_limits<int>::max());
      for (std::size_t i = 0; i < active_.size(); ++i) {
        const Share& conn = shares_[active_[i]];
        for (int nic : {conn.out_nic, conn.in_nic}) nic_first_[nic] = std::min(nic_first_[nic], static_cast<int>(i));
      }
      nic_first_kept_ = true;
    }
    std::vector<std::uint64_t>& order = busy_order_;
    order.clear();
    for (int nic = 0; nic < 2 * hosts_; ++nic) {
      if (nic_active_[nic].empty()) continue;
      const std::uint64_t position = 2 * static_cast<std::uint64_t>(nic_first_[nic]) + (nic < hosts_ ? 0 : 1);
      order.push_back(position << 32 | static_cast<std::uint32_t>(nic));
    }
    std::sort(order.begin(), order.end());
    for (const std::uint64_t entry : order) list_busy_nic(static_cast<int>(entry & 0xffffffffu));
  }
  std::size_t unfixed = active_.size();
  while (unfixed > 0) {
    // Each NIC's share is kept up to date as connections are fixed, so the
    // bottleneck is a minimum of shares, not a comparison of fractions.
    const int bottleneck = first_at_min(busy_nics_, nic_share_);
    const double share = nic_share_[bottleneck];
    if (share == kNoShare) throw std::logic_error("internal error: Network::fill_rates found no bottleneck");
    // The bottleneck itself is done once its connections are fixed: only
    // their other NICs' shares move (a division each, independent of one
    // another, where updating the bottleneck too chained them).
    for (int c : nic_active_[bottleneck]) {
      Share& conn = shares_[c];
      if (conn.fixed_in_pass == fill_pass_) continue;  // through its other NIC
      conn.fixed_in_pass = fill_pass_;
      conn.next_rate = share;
      note_rate(c);
      --unfixed;
      const int other = conn.out_nic == bottleneck ? conn.in_nic : conn.out_nic;
      nic_remaining_[other] -= share;
      const int left = --nic_unfixed_[other];
      nic_share_[other] = left > 0 ? nic_remaining_[other] / left : kNoShare;
    }
    nic_unfixed_[bottleneck] = 0;
    nic_share_[bottleneck] = kNoShare;
  }
}

void Network::schedule_front(int c) {
  Connection& conn = connections_[c];
  const double remaining = std::max(0.0, conn.remaining);
  conn.finish_at = conn.updated + std::max<SimTime>(0, ceil_to_int(remaining / shares_[c].rate - 1e-6));
  finish_moved(c);
}

void Network::arm() {
  // Every send ends here, so until the next call rates change only at
  // completions, and a connection that a completion speeds up cannot finish
  // before that completion: no delivery can be due before the earliest
  // completion plus the shortest delay. With the rates stale, the earliest
  // completion is not known, but none comes before they changed.
  const SimTime next = stale_ ? stale_since_ : earliest().first;
  if (next == kNever) return;  // nothing on the wire: a live backstop fires harmlessly
  const SimTime due = std::max(simulator_.now(), next + shortest_delay());
  if (armed_at_ >= 0 && armed_at_ <= due) return;  // the live backstop comes first and arms the next
  armed_at_ = due;
  ++generation_;
  simulator_.at(due, this, generation_);
}

void Network::on_event(std::uint64_t generation) {
  if (generation != generation_) return;  // superseded by an earlier backstop
  armed_at_ = -1;
  flush();
  settle(simulator_.now());
  arm();
}

}  // namespace exsim::sim
