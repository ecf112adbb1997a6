#include "sim/resources/max_min_shares.h"

#include <algorithm>
#include <limits>
#include <stdexcept>

namespace exsim::sim {

namespace {
constexpr double kNoShare = std::numeric_limits<double>::infinity();  // a NIC with no unfixed flow

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

MaxMinShares::MaxMinShares(int hosts, double capacity, std::size_t scan_limit, Filling filling)
    : hosts_(hosts),
      capacity_(capacity),
      scan_limit_(scan_limit),
      filling_(filling),
      flows_(static_cast<std::size_t>(hosts) * hosts),
      slot_(static_cast<std::size_t>(hosts) * hosts, -1),
      nic_active_(2 * static_cast<std::size_t>(hosts)),
      nic_first_(2 * static_cast<std::size_t>(hosts), 0),
      nic_remaining_(2 * static_cast<std::size_t>(hosts)),
      nic_unfixed_(2 * static_cast<std::size_t>(hosts), 0),
      nic_share_(2 * static_cast<std::size_t>(hosts), kNoShare),
      changed_(static_cast<std::size_t>(hosts) * hosts),
      nic_seen_(2 * static_cast<std::size_t>(hosts), 0) {
  // Each flow's NICs, worked out once: a division per use adds up.
  for (int from = 0; from < hosts; ++from) {
    for (int to = 0; to < hosts; ++to) {
      flows_[static_cast<std::size_t>(from * hosts + to)].out_nic = from;
      flows_[static_cast<std::size_t>(from * hosts + to)].in_nic = hosts + to;
    }
  }
}

bool MaxMinShares::add(int c) {
  const int out = flows_[c].out_nic, in = flows_[c].in_nic;
  slot_[c] = static_cast<int>(active_.size());
  active_.push_back(c);
  nic_active_[out].push_back(c);
  nic_active_[in].push_back(c);
  for (int nic : {out, in}) {
    if (nic_active_[nic].size() > 1) continue;
    ++busy_nic_count_;
    nic_first_[nic] = slot_[c];  // last in the list: first only on an idle NIC
  }
  if (nic_active_[out].size() == 1 && nic_active_[in].size() == 1) {
    flows_[c].rate = capacity_;
    return true;
  }
  touched_nics_.push_back(out);
  touched_nics_.push_back(in);
  return false;
}

bool MaxMinShares::remove(int c) {
  const int slot = slot_[c];
  const int moving = active_.back();  // the last busy flow takes its place in the list
  active_[slot] = moving;
  slot_[moving] = slot;
  active_.pop_back();
  slot_[c] = -1;
  flows_[c].rate = 0;
  if (nic_first_kept_ && moving != c) {
    for (int nic : {flows_[moving].out_nic, flows_[moving].in_nic}) {
      nic_first_[nic] = std::min(nic_first_[nic], slot);
    }
  }
  const int out = flows_[c].out_nic, in = flows_[c].in_nic;
  for (int nic : {out, in}) {
    auto& list = nic_active_[nic];
    list.erase(std::find(list.begin(), list.end(), c));
    if (list.empty()) {
      --busy_nic_count_;
    } else if (nic_first_kept_ && nic_first_[nic] == slot && flows_[moving].out_nic != nic &&
               flows_[moving].in_nic != nic) {
      // It was the NIC's first in the list, and what took its place is not on
      // it. (Last in the list itself, it was first only alone on the NIC.)
      int first = std::numeric_limits<int>::max();
      for (int other : list) first = std::min(first, slot_[other]);
      nic_first_[nic] = first;
    }
  }
  if (active_.empty()) nic_first_kept_ = false;  // kept again when many are busy
  // A flow that shared no NIC leaves everyone's rate as it was.
  if (nic_active_[out].empty() && nic_active_[in].empty()) return false;
  touched_nics_.push_back(out);
  touched_nics_.push_back(in);
  return true;
}

std::span<const int> MaxMinShares::work_out() {
  changed_count_ = 0;
  ++fill_pass_;
  // With few busy, only the flows connected to a change are filled when they
  // are not all. Stars, of the part or of every busy flow, take one division
  // each: the rates the filling would give them.
  const bool part = active_.size() <= scan_limit_ && mark_changed_part() && part_flows_.size() < active_.size();
  // Each flow of a star has a NIC of its own, and each star one more (its
  // centre): with no more busy NICs than busy flows, not all are stars.
  const bool stars = part ? star_rates(part_flows_)
                          : static_cast<int>(active_.size()) < busy_nic_count_ && star_rates(active_);
  if (!stars) fill_rates(part);
  touched_nics_.clear();
  return {changed_.data(), changed_count_};
}

// Lists `c` as changed if its new rate differs (without a branch: which
// rates change is anyone's guess).
void MaxMinShares::note_rate(int c) {
  changed_[changed_count_] = c;
  changed_count_ += flows_[c].next_rate != flows_[c].rate ? 1 : 0;
}

bool MaxMinShares::star_rates(std::span<const int> flows) {
  // When each of the flows has one of its NICs to itself, their busy NICs
  // form stars: a NIC shared by k flows, each alone on its other NIC.
  // Progressive filling then fixes each star's flows at capacity / k in
  // one round (a NIC of its own offers the whole capacity, more than any
  // shared one), which is this division exactly. In the benchmark, most
  // workings-out are of such sets (a few busy flows among many NICs). The
  // flows of a part a change reached (mark_changed_part) share no NIC with
  // the other busy flows, so the same holds of them: most parts are one to
  // three flows.
  // Whether they are stars first, without dividing: most sets the filling
  // works out are not, and a failed try cost a division per busy flow.
  for (int c : flows) {
    const Flow& conn = flows_[c];
    if (nic_active_[conn.out_nic].size() > 1 && nic_active_[conn.in_nic].size() > 1) return false;
  }
  for (int c : flows) {
    Flow& conn = flows_[c];
    const std::size_t out = nic_active_[conn.out_nic].size(), in = nic_active_[conn.in_nic].size();
    conn.next_rate = capacity_ / static_cast<int>(std::max(out, in));
    note_rate(c);
  }
  return true;
}

void MaxMinShares::list_busy_nic(int nic) {
  nic_unfixed_[nic] = static_cast<int>(nic_active_[nic].size());
  nic_remaining_[nic] = capacity_;
  nic_share_[nic] = capacity_ / nic_unfixed_[nic];
  busy_nics_.push_back(nic);
}

void MaxMinShares::fill_rates(bool part) {
  // Progressive filling: repeatedly take the NIC with the smallest fair share
  // among its unfixed flows and fix those flows at that share.
  // Only NICs that carry an active flow take part, listed in the order
  // the active flows first reach them; that order breaks ties. A
  // flow counts as unfixed until this pass's number is on it, so that
  // with many busy the setup need not visit every busy flow.
  busy_nics_.clear();
  std::size_t unfixed = part ? part_flows_.size() : active_.size();
  if (active_.size() <= scan_limit_) {
    // Only the flows of `part` when marked: the others' filling reads and
    // writes none of their NICs, so it would give them the rates they have,
    // bit for bit. Those listed keep their order among themselves, which is
    // all their ties and sums depend on.
    for (int c : active_) {
      if (part && nic_seen_[flows_[c].out_nic] != fill_pass_) continue;
      for (int nic : {flows_[c].out_nic, flows_[c].in_nic}) {
        if (nic_unfixed_[nic] == 0) list_busy_nic(nic);  // not listed yet (idle NICs are left at zero)
      }
    }
  } else {
    // The busy NICs in that order: by the position of their first flow in
    // the list, an outbound NIC before the inbound one of the same flow.
    // Those positions are kept as flows come and go from the first time
    // many are busy (a small set lists its NICs by the loop above, and the
    // benchmark measured the bookkeeping), until none is.
    if (!nic_first_kept_) {
      std::fill(nic_first_.begin(), nic_first_.end(), std::numeric_limits<int>::max());
      for (std::size_t i = 0; i < active_.size(); ++i) {
        const Flow& conn = flows_[active_[i]];
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
  while (unfixed > 0) {
    // Each NIC's share is kept up to date as flows are fixed, so the
    // bottleneck is a minimum of shares, not a comparison of fractions.
    const int bottleneck = first_at_min(busy_nics_, nic_share_);
    const double share = nic_share_[bottleneck];
    if (share == kNoShare) throw std::logic_error("internal error: MaxMinShares::fill_rates found no bottleneck");
    // The bottleneck itself is done once its flows are fixed: only
    // their other NICs' shares move (a division each, independent of one
    // another, where updating the bottleneck too chained them).
    for (int c : nic_active_[bottleneck]) {
      Flow& conn = flows_[c];
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

bool MaxMinShares::mark_changed_part() {
  if (filling_ == Filling::kEveryFlow || touched_nics_.empty()) return false;
  // The busy NICs reached from the touched ones through busy flows. Each flow
  // reached has both its NICs marked and is listed once.
  seen_stack_.clear();
  const auto reach = [&](int nic) {
    if (nic_seen_[nic] == fill_pass_ || nic_active_[nic].empty()) return;
    nic_seen_[nic] = fill_pass_;
    seen_stack_.push_back(nic);
  };
  for (int nic : touched_nics_) reach(nic);
  part_flows_.clear();
  while (!seen_stack_.empty()) {
    const int nic = seen_stack_.back();
    seen_stack_.pop_back();
    for (int c : nic_active_[nic]) {
      const bool out = flows_[c].out_nic == nic;
      if (out) part_flows_.push_back(c);  // once: from its outbound NIC
      reach(out ? flows_[c].in_nic : flows_[c].out_nic);
    }
  }
  return !part_flows_.empty();
}

}  // namespace exsim::sim
