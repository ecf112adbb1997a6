#include "sim/resources/network.h"

#include <algorithm>
#include <limits>
#include <stdexcept>

#include "models/base/rounding.h"

namespace exsim::sim {

namespace {
constexpr SimTime kNever = std::numeric_limits<SimTime>::max();
static_assert(kNever == MinTree::kNone, "an idle connection's finish is the tree's empty key");
}  // namespace

Network::Network(Simulator& simulator, int hosts, double nic_bytes_per_ns, std::size_t scan_limit)
    : simulator_(simulator),
      hosts_(hosts),
      scan_limit_(scan_limit),
      connections_(static_cast<std::size_t>(hosts) * hosts),
      shares_(hosts, nic_bytes_per_ns, scan_limit),
      finish_tree_(hosts * hosts) {
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
  return shares_.rate(index(from, to));
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
  if (shares_.busy_flows().size() <= scan_limit_) {
    for (int c : shares_.busy_flows()) {
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
      finish_tree_.set(c, shares_.busy(c) ? conn.finish_at : kNever);
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
  if (earliest_ == kUnknown || !shares_.busy(c)) return;
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
  if (shares_.add(c)) {
    // Alone on both NICs: it gets the full capacity and no other rate changes.
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
  const bool others_change = shares_.remove(c);
  if (c == earliest_) earliest_ = kUnknown;
  finish_moved(c);
  if (others_change) set_changed(at);
}

void Network::recompute_rates(SimTime at) {
  for (const int c : shares_.work_out()) {
    Connection& conn = connections_[c];
    conn.remaining -= shares_.rate(c) * static_cast<double>(at - conn.updated);
    conn.updated = at;
    shares_.commit(c);
    schedule_front(c);
  }
}

void Network::schedule_front(int c) {
  Connection& conn = connections_[c];
  const double remaining = std::max(0.0, conn.remaining);
  conn.finish_at = conn.updated + std::max<SimTime>(0, ceil_to_int(remaining / shares_.rate(c) - 1e-6));
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
  // The next completion's transfer, queued long ago behind others: with
  // thousands of connections busy its record is out of cache by the time
  // the next send settles it.
  if (!stale_) __builtin_prefetch(&connections_[static_cast<std::size_t>(earliest_)].queue.front());
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
