#include "transport/exchange/scanner_threads.h"

#include <algorithm>

#include "transport/net/thread_cpu.h"

namespace exsim::transport {

ScannerThreads::ScannerThreads(const ScanShape& shape, std::atomic<std::int64_t>& cpu_stage)
    : shape_(shape), cpu_stage_(cpu_stage), rows_left_(shape.rows) {}

ScannerThreads::~ScannerThreads() {
  stop();
  for (auto& t : threads_) t.join();
}

void ScannerThreads::start() {
  for (int i = 0; i < shape_.threads; ++i) threads_.emplace_back([this] { scan(); });
}

void ScannerThreads::stop() {
  {
    std::lock_guard lock(mutex_);
    stopped_ = true;
  }
  scanned_.notify_all();
  room_.notify_all();
}

bool ScannerThreads::take(std::chrono::steady_clock::time_point deadline) {
  std::unique_lock lock(mutex_);
  if (!scanned_.wait_until(lock, deadline, [&] { return queued_ > 0 || stopped_; }) || stopped_) return false;
  --queued_;
  lock.unlock();
  room_.notify_one();
  return true;
}

void ScannerThreads::scan() {
  std::unique_lock lock(mutex_);
  while (!stopped_ && rows_left_ > 0) {
    const std::int64_t rows = std::min(rows_left_, shape_.rows_per_batch);
    rows_left_ -= rows;
    lock.unlock();
    {
      // In slices of 1 ms, so that a stop need not wait for a long batch.
      CpuScope cpu(cpu_stage_);
      const std::int64_t until = cpu.start_ns() + static_cast<std::int64_t>(static_cast<double>(rows) * shape_.ns_per_row);
      for (std::int64_t now = cpu.start_ns(); now < until && !stopped_.load(std::memory_order_relaxed); now = thread_cpu_ns()) {
        burn_thread_cpu_until(std::min(until, now + 1'000'000));
      }
    }
    lock.lock();
    room_.wait(lock, [&] { return queued_ < shape_.queue || stopped_; });
    if (stopped_) break;  // a batch cut short by the stop is not a batch
    ++queued_;
    lock.unlock();
    scanned_.notify_one();
    lock.lock();
  }
}

}  // namespace exsim::transport
