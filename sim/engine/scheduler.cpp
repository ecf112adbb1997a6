#include "sim/engine/scheduler.h"

#include <algorithm>

namespace exsim::sim {
namespace {

// An implicit d-ary min-heap in a vector. D = 4 halves the depth of a binary
// heap and keeps a node's children in one or two cache lines.
template <int D>
class DaryHeapScheduler final : public Scheduler {
 public:
  void push(const Event& event) override {
    heap_.push_back(event);
    sift_up(heap_.size() - 1);
  }

  Event pop() override {
    Event top = heap_.front();
    Event last = heap_.back();
    heap_.pop_back();
    if (!heap_.empty()) sift_down(last);
    return top;
  }

  const Event& top() const override { return heap_.front(); }
  bool empty() const override { return heap_.empty(); }
  std::size_t size() const override { return heap_.size(); }

 private:
  void sift_up(std::size_t i) {
    Event moving = heap_[i];
    while (i > 0) {
      std::size_t parent = (i - 1) / D;
      if (!moving.before(heap_[parent])) break;
      heap_[i] = heap_[parent];
      i = parent;
    }
    heap_[i] = moving;
  }

  // Places `moving` starting from the root, moving smaller children up.
  void sift_down(const Event& moving) {
    const std::size_t n = heap_.size();
    std::size_t i = 0;
    while (true) {
      std::size_t first = i * D + 1;
      if (first >= n) break;
      std::size_t best = first;
      std::size_t end = std::min(first + D, n);
      for (std::size_t c = first + 1; c < end; ++c) {
        if (heap_[c].before(heap_[best])) best = c;
      }
      if (!heap_[best].before(moving)) break;
      heap_[i] = heap_[best];
      i = best;
    }
    heap_[i] = moving;
  }

  std::vector<Event> heap_;
};

}  // namespace

std::unique_ptr<Scheduler> make_scheduler(std::string_view name) {
  if (name == "quad-heap") return std::make_unique<DaryHeapScheduler<4>>();
  if (name == "binary-heap") return std::make_unique<DaryHeapScheduler<2>>();
  return nullptr;
}

}  // namespace exsim::sim
