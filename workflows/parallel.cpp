#include "workflows/parallel.h"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <thread>
#include <vector>

namespace exsim::workflows {

std::exception_ptr for_each_parallel(std::size_t count, int jobs, const std::function<void(std::size_t)>& work,
                                     const std::function<bool()>& keep_going) {
  std::atomic<std::size_t> next{0};
  std::atomic<bool> failed{false};
  std::mutex mutex;
  std::exception_ptr failure;
  auto run = [&] {
    while (!failed.load() && (!keep_going || keep_going())) {
      const std::size_t i = next.fetch_add(1);
      if (i >= count) return;
      try {
        work(i);
      } catch (...) {
        std::lock_guard<std::mutex> lock(mutex);
        if (!failure) failure = std::current_exception();
        failed.store(true);
      }
    }
  };
  const auto threads_wanted = std::min<std::size_t>(static_cast<std::size_t>(std::max(1, jobs)), count);
  std::vector<std::thread> threads;
  for (std::size_t t = 0; t < threads_wanted; ++t) threads.emplace_back(run);
  for (auto& t : threads) t.join();
  return failure;
}

}  // namespace exsim::workflows
