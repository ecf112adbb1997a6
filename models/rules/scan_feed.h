// Where a sender's scan runs, and how far it may run ahead of the sender
// (Impala's scan nodes; the simulator and the real exchange apply both alike).
//
// At mt_dop 0 an HDFS scan node starts scanner threads that materialize row
// batches into a queue the fragment's thread takes them from
// (hdfs-scan-node.cc); the thread's own work is then the operator above the
// scan and the sender, and a full queue stops the scanners. At mt_dop > 0 the
// scan node is HdfsScanNodeMt, which scans on the fragment instance's thread:
// no scanner threads and no queue.
#ifndef EXSIM_MODELS_RULES_SCAN_FEED_H_
#define EXSIM_MODELS_RULES_SCAN_FEED_H_

#include <cstdint>

#include "models/scenario/scenario.h"

namespace exsim {

// The scanner threads of one sender instance of `rows` rows, as the simulator
// and the real exchange both run them. The queue between them and the sender
// holds 5 input batches per scanner thread
// (max_queued_row_batches_per_scanner_thread, scan-node.cc) and at most 16 MiB
// of rows (max_queued_row_batch_bytes), never fewer than one batch.
struct ScanShape {
  int threads = 0;         // 0: none, the sender's thread scans (if there is a scan)
  std::int64_t queue = 1;  // scanned input batches the queue holds
  double ns_per_row = 0;   // one scanner thread's CPU per row
  std::int64_t rows = 0;   // all of the sender's rows
  std::int64_t rows_per_batch = 1024;
};
ScanShape scan_shape(const Scenario& scenario, const Exchange& exchange, std::int64_t rows);

// CPU the sender's thread spends on `rows` input rows before it routes them:
// the operator feeding it (produce_rows_per_s) and, unless scanner threads
// scanned them (`scanned_apart`), their scan.
double sender_input_ns(const Exchange& exchange, std::int64_t rows, bool scanned_apart);

}  // namespace exsim

#endif  // EXSIM_MODELS_RULES_SCAN_FEED_H_
