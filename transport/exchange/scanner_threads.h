// The scanner threads of one sender instance at mt_dop 0 (Impala's HDFS scan
// node, models/rules/scan_feed.h): each scans input batches, spending the
// scan's CPU on its own thread, and queues them; the sender's thread takes
// them one by one and waits when none is queued. A full queue stops the
// scanners (a scanner holds the batch it finished until there is room, as
// Impala's blocking queue does). The rows themselves are the sender's
// generator's: what the scanners hand over is the right to the next batch,
// after the CPU that scanning it costs.
#ifndef EXSIM_TRANSPORT_EXCHANGE_SCANNER_THREADS_H_
#define EXSIM_TRANSPORT_EXCHANGE_SCANNER_THREADS_H_

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

#include "models/rules/scan_feed.h"

namespace exsim::transport {

class ScannerThreads {
 public:
  // Scanning CPU is charged to `cpu_stage`.
  ScannerThreads(const ScanShape& shape, std::atomic<std::int64_t>& cpu_stage);
  ~ScannerThreads();  // stops and joins the threads
  ScannerThreads(const ScannerThreads&) = delete;
  ScannerThreads& operator=(const ScannerThreads&) = delete;

  void start();
  // Waits for the next scanned batch; false when stopped or at the deadline.
  bool take(std::chrono::steady_clock::time_point deadline);
  // Stops the scanners, within about a millisecond of their CPU even mid-batch,
  // and wakes every waiter (a failed run).
  void stop();

 private:
  void scan();

  const ScanShape shape_;
  std::atomic<std::int64_t>& cpu_stage_;
  std::mutex mutex_;
  std::condition_variable scanned_;  // the sender waits for a batch
  std::condition_variable room_;     // scanners wait for room in the queue
  std::int64_t rows_left_;           // not yet being scanned
  std::int64_t queued_ = 0;
  std::atomic<bool> stopped_{false};  // set under the mutex; read without it mid-batch
  std::vector<std::thread> threads_;
};

}  // namespace exsim::transport

#endif  // EXSIM_TRANSPORT_EXCHANGE_SCANNER_THREADS_H_
