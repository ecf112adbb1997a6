// A FIFO queue in one growable ring buffer: after warm-up, push and pop never
// allocate (std::deque allocates and frees blocks as it moves).
#ifndef EXSIM_MODELS_BASE_RING_QUEUE_H_
#define EXSIM_MODELS_BASE_RING_QUEUE_H_

#include <cstddef>
#include <vector>

namespace exsim {

template <typename T>
class RingQueue {
 public:
  bool empty() const { return size_ == 0; }
  std::size_t size() const { return size_; }
  T& front() { return slots_[head_]; }
  const T& front() const { return slots_[head_]; }
  T& at(std::size_t i) { return slots_[(head_ + i) & (slots_.size() - 1)]; }

  void push(const T& value) {
    if (size_ == slots_.size()) grow();
    slots_[(head_ + size_) & (slots_.size() - 1)] = value;
    ++size_;
  }

  T pop() {
    T value = slots_[head_];
    head_ = (head_ + 1) & (slots_.size() - 1);
    --size_;
    return value;
  }

 private:
  void grow() {
    std::vector<T> bigger(slots_.empty() ? 8 : slots_.size() * 2);
    for (std::size_t i = 0; i < size_; ++i) bigger[i] = at(i);
    slots_.swap(bigger);
    head_ = 0;
  }

  std::vector<T> slots_;  // size is a power of two
  std::size_t head_ = 0;
  std::size_t size_ = 0;
};

}  // namespace exsim

#endif  // EXSIM_MODELS_BASE_RING_QUEUE_H_
