// A calendar queue (Brown, CACM 1988; ns-3's CalendarScheduler) shaped for an
// exchange's events, which are almost all due within a few milliseconds (CPU
// steps and transfers of microseconds, half RTTs of 0.05-0.35 ms): a wheel of
// 4096 buckets of 1.024 us covers 4.2 ms ahead; later events wait in a heap and
// move onto the wheel as time reaches them, each at most once.
//
// Why: a heap pays a few unpredictable comparisons per level on every pop,
// which was most of the simulator's cost per event. Here a push is an append to
// its bucket's list, and a pop finds the next non-empty bucket through a
// two-level bitmap and takes the bucket's events in (time, seq) order, sorted
// once when the bucket comes up (a ladder queue's bottom rung), so a crowded
// bucket costs a sort rather than a scan per pop. The order is exactly the
// heap's: results do not depend on the scheduler.
//
// REQUIRES of push: not earlier than the last event popped (a simulator never
// goes back); an earlier one is still handled, by rebuilding the wheel.
#ifndef EXSIM_SIM_ENGINE_CALENDAR_SCHEDULER_H_
#define EXSIM_SIM_ENGINE_CALENDAR_SCHEDULER_H_

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <vector>

#include "sim/engine/scheduler.h"

namespace exsim::sim {

class CalendarScheduler final : public Scheduler {
 public:
  static constexpr int kWidthBits = 10;   // a bucket spans 1024 ns
  static constexpr int kBucketBits = 12;  // 4096 buckets
  static constexpr std::int64_t kBuckets = std::int64_t{1} << kBucketBits;

  CalendarScheduler() { heads_.fill(kNil); }

  void push(const Event& event) override { push_inline(event); }
  Event pop() override { return pop_inline(); }
  const Event& top() const override;
  bool empty() const override { return size_ == 0; }
  std::size_t size() const override { return size_; }

  void push_inline(const Event& event) {
    ++size_;
    place(event);
  }

  Event pop_inline() {
    --size_;
    if (next_ == current_events_.size()) advance();
    return current_events_[next_++];
  }
  // Starts loading what the next event of the current bucket will touch, while
  // the one just popped runs (prefetch_tag).
  void prefetch_next() const {
    if (next_ == current_events_.size()) return;
    const Event& e = current_events_[next_];
    __builtin_prefetch(e.handler);
    prefetch_tag(e.tag);
  }

 private:
  static constexpr std::uint32_t kNil = 0xffffffffu;
  static constexpr std::int64_t kMask = kBuckets - 1;
  struct Node {
    Event event;
    std::uint32_t next;
  };
  // A function object, so that sort and upper_bound inline it.
  struct Earlier {
    bool operator()(const Event& a, const Event& b) const { return a.before(b); }
  };

  void place(const Event& event) {
    const std::int64_t bucket = event.time >> kWidthBits;
    if (bucket == current_) {
      insert_current(event);
    } else if (bucket > current_ && bucket < current_ + kBuckets) {
      add_to_wheel(event, bucket);
    } else if (bucket >= current_ + kBuckets) {
      far_.push_inline(event);
    } else {
      rewind(event);
    }
  }

  void insert_current(const Event& event) {
    if (next_ == current_events_.size()) {
      current_events_.clear();  // all popped: start afresh
      next_ = 0;
    } else if (next_ >= 1024 && 2 * next_ >= current_events_.size()) {
      // A bucket pushed to as fast as it is popped: drop the popped part.
      current_events_.erase(current_events_.begin(), current_events_.begin() + static_cast<std::ptrdiff_t>(next_));
      next_ = 0;
    }
    // Usually the latest of the bucket, appended; otherwise in its place among
    // those not yet popped.
    if (current_events_.empty() || !event.before(current_events_.back())) {
      current_events_.push_back(event);
      return;
    }
    const auto from = current_events_.begin() + static_cast<std::ptrdiff_t>(next_);
    current_events_.insert(std::upper_bound(from, current_events_.end(), event, Earlier{}), event);
  }

  void add_to_wheel(const Event& event, std::int64_t bucket) {
    const auto slot = static_cast<std::size_t>(bucket & kMask);
    std::uint32_t node;
    if (free_ != kNil) {
      node = free_;
      free_ = nodes_[node].next;
    } else {
      node = static_cast<std::uint32_t>(nodes_.size());
      nodes_.push_back({});
    }
    nodes_[node] = Node{event, heads_[slot]};
    heads_[slot] = node;
    words_[slot >> 6] |= std::uint64_t{1} << (slot & 63);
    summary_ |= std::uint64_t{1} << (slot >> 6);
    ++on_wheel_;
  }

  // Makes the next non-empty bucket current. REQUIRES: !empty().
  void advance();
  // First non-empty wheel slot at or after `from`, cyclically. REQUIRES: on_wheel_ > 0.
  std::size_t next_slot(std::size_t from) const;
  // Moves a wheel slot's events, sorted, into current_events_.
  void take_bucket(std::size_t slot);
  // Places the far events that the wheel now reaches. The check is inline:
  // the far heap is almost always empty, and a call per bucket showed up.
  void migrate_far() {
    if (!far_.empty()) migrate_far_events();
  }
  void migrate_far_events();
  void rewind(const Event& event);

  std::array<std::uint32_t, kBuckets> heads_;
  std::array<std::uint64_t, kBuckets / 64> words_{};  // a bit per non-empty slot
  std::uint64_t summary_ = 0;                          // a bit per non-zero word
  std::vector<Node> nodes_;
  std::uint32_t free_ = kNil;
  std::size_t on_wheel_ = 0;
  std::vector<Event> current_events_;  // the current bucket, in order; popped up to next_
  std::size_t next_ = 0;
  std::int64_t current_ = 0;           // absolute index of the current bucket
  DaryHeapScheduler<4> far_;           // events 4096 buckets or more ahead
  std::size_t size_ = 0;
};

}  // namespace exsim::sim

#endif  // EXSIM_SIM_ENGINE_CALENDAR_SCHEDULER_H_
