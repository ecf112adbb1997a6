// Objects reused instead of allocated per call or per batch. Thread-safe: one
// thread may take what another gave back. The pool owns every object it made.
#ifndef EXSIM_TRANSPORT_EXCHANGE_OBJECT_POOL_H_
#define EXSIM_TRANSPORT_EXCHANGE_OBJECT_POOL_H_

#include <memory>
#include <mutex>
#include <vector>

namespace exsim::transport {

template <typename T>
class ObjectPool {
 public:
  // A free object (as it was given back), or a new one.
  T* take() {
    std::lock_guard lock(mutex_);
    if (free_.empty()) {
      all_.push_back(std::make_unique<T>());
      return all_.back().get();
    }
    T* object = free_.back();
    free_.pop_back();
    return object;
  }
  void give_back(T* object) {
    std::lock_guard lock(mutex_);
    free_.push_back(object);
  }

 private:
  std::mutex mutex_;
  std::vector<std::unique_ptr<T>> all_;
  std::vector<T*> free_;
};

}  // namespace exsim::transport

#endif  // EXSIM_TRANSPORT_EXCHANGE_OBJECT_POOL_H_
