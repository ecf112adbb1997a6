// Memory for handlers posted from other threads to a reactor. Asio recycles
// handler memory per thread, which does not help when one thread allocates
// (a sender posting a call) and another frees (the reactor running it): every
// post would reach malloc. This pool keeps freed blocks for any thread to
// reuse, so steady state allocates nothing. Thread-safe.
#ifndef EXSIM_TRANSPORT_NET_HANDLER_POOL_H_
#define EXSIM_TRANSPORT_NET_HANDLER_POOL_H_

#include <cstddef>
#include <cstdlib>
#include <mutex>
#include <new>
#include <vector>

namespace exsim::transport {

class HandlerPool {
 public:
  static constexpr std::size_t kBlock = 256;

  HandlerPool() = default;
  HandlerPool(const HandlerPool&) = delete;
  HandlerPool& operator=(const HandlerPool&) = delete;
  ~HandlerPool() {
    for (void* p : free_) std::free(p);
  }

  void* allocate(std::size_t bytes) {
    if (bytes > kBlock) return ::operator new(bytes);
    {
      std::lock_guard lock(mutex_);
      if (!free_.empty()) {
        void* p = free_.back();
        free_.pop_back();
        return p;
      }
    }
    if (void* p = std::malloc(kBlock)) return p;
    throw std::bad_alloc();
  }

  void deallocate(void* p, std::size_t bytes) {
    if (bytes > kBlock) {
      ::operator delete(p);
      return;
    }
    std::lock_guard lock(mutex_);
    free_.push_back(p);
  }

 private:
  std::mutex mutex_;
  std::vector<void*> free_;
};

// A standard allocator over a HandlerPool, for asio::bind_allocator.
template <typename T>
class PoolAllocator {
 public:
  using value_type = T;
  explicit PoolAllocator(HandlerPool* pool) : pool_(pool) {}
  template <typename U>
  PoolAllocator(const PoolAllocator<U>& other) : pool_(other.pool()) {}  // NOLINT: rebinding
  T* allocate(std::size_t n) { return static_cast<T*>(pool_->allocate(n * sizeof(T))); }
  void deallocate(T* p, std::size_t n) { pool_->deallocate(p, n * sizeof(T)); }
  HandlerPool* pool() const { return pool_; }
  template <typename U>
  bool operator==(const PoolAllocator<U>& other) const { return pool_ == other.pool(); }
  template <typename U>
  bool operator!=(const PoolAllocator<U>& other) const { return pool_ != other.pool(); }

 private:
  HandlerPool* pool_;
};

}  // namespace exsim::transport

#endif  // EXSIM_TRANSPORT_NET_HANDLER_POOL_H_
