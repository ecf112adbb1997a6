#include "sim/engine/calendar_scheduler.h"

namespace exsim::sim {

const Event& CalendarScheduler::top() const {
  if (next_ < current_events_.size()) return current_events_[next_];
  if (on_wheel_ == 0) return far_.top();
  // The earliest of the next non-empty bucket, found without making it current.
  const std::uint32_t head = heads_[next_slot(static_cast<std::size_t>((current_ + 1) & kMask))];
  const Event* best = &nodes_[head].event;
  for (std::uint32_t n = nodes_[head].next; n != kNil; n = nodes_[n].next) {
    if (nodes_[n].event.before(*best)) best = &nodes_[n].event;
  }
  return *best;
}

void CalendarScheduler::advance() {
  if (on_wheel_ == 0) {
    // Nothing within the wheel's reach: jump to the earliest far event.
    current_ = far_.top().time >> kWidthBits;
    migrate_far();
    return;  // the earliest far event is now in the current bucket
  }
  const auto from = static_cast<std::size_t>((current_ + 1) & kMask);
  const std::size_t slot = next_slot(from);
  current_ += 1 + static_cast<std::int64_t>((slot - from) & static_cast<std::size_t>(kMask));
  take_bucket(slot);
  migrate_far();
}

std::size_t CalendarScheduler::next_slot(std::size_t from) const {
  const std::size_t word = from >> 6;
  const std::uint64_t here = words_[word] & (~std::uint64_t{0} << (from & 63));
  if (here != 0) return (word << 6) + static_cast<std::size_t>(std::countr_zero(here));
  const std::uint64_t after = word == 63 ? 0 : summary_ & (~std::uint64_t{0} << (word + 1));
  // None after `from`: wrap around to the first non-empty word (possibly this one).
  const auto next = static_cast<std::size_t>(std::countr_zero(after != 0 ? after : summary_));
  return (next << 6) + static_cast<std::size_t>(std::countr_zero(words_[next]));
}

void CalendarScheduler::take_bucket(std::size_t slot) {
  current_events_.clear();
  next_ = 0;
  for (std::uint32_t n = heads_[slot]; n != kNil;) {
    current_events_.push_back(nodes_[n].event);
    const std::uint32_t next = nodes_[n].next;
    nodes_[n].next = free_;
    free_ = n;
    --on_wheel_;
    n = next;
  }
  heads_[slot] = kNil;
  words_[slot >> 6] &= ~(std::uint64_t{1} << (slot & 63));
  if (words_[slot >> 6] == 0) summary_ &= ~(std::uint64_t{1} << (slot >> 6));
  // Most buckets hold a few events: an insertion sort beats std::sort's setup.
  const std::size_t n = current_events_.size();
  if (n > 16) {
    std::sort(current_events_.begin(), current_events_.end(), Earlier{});
  } else {
    for (std::size_t i = 1; i < n; ++i) {
      const Event e = current_events_[i];
      std::size_t j = i;
      for (; j > 0 && e.before(current_events_[j - 1]); --j) current_events_[j] = current_events_[j - 1];
      current_events_[j] = e;
    }
  }
}

void CalendarScheduler::migrate_far_events() {
  // Compared in buckets, not nanoseconds: no overflow near the end of time.
  const std::int64_t reach = current_ + kBuckets;
  while (!far_.empty() && (far_.top().time >> kWidthBits) < reach) place(far_.pop_inline());
}

void CalendarScheduler::rewind(const Event& event) {
  // An event before the current bucket: put everything back in the far heap
  // and start the wheel again at the new event's bucket.
  for (std::size_t i = next_; i < current_events_.size(); ++i) far_.push_inline(current_events_[i]);
  current_events_.clear();
  next_ = 0;
  for (std::size_t slot = 0; slot < static_cast<std::size_t>(kBuckets); ++slot) {
    for (std::uint32_t n = heads_[slot]; n != kNil; n = nodes_[n].next) far_.push_inline(nodes_[n].event);
    heads_[slot] = kNil;
  }
  nodes_.clear();
  free_ = kNil;
  words_.fill(0);
  summary_ = 0;
  on_wheel_ = 0;
  current_ = event.time >> kWidthBits;
  current_events_.push_back(event);
  migrate_far();
}

}  // namespace exsim::sim
