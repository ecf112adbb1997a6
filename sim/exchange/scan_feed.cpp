#include "sim/exchange/scan_feed.h"

#include <algorithm>

#include "sim/exchange/model_context.h"

namespace exsim::sim {

ScanFeed::ScanFeed(ModelContext& context, int host, const ScanShape& shape, EventHandler& scanned, std::uint64_t tag)
    : context_(context), host_(host), shape_(shape), consumer_(scanned), consumer_tag_(tag), rows_left_(shape.rows) {}

bool ScanFeed::take() {
  if (queued_ == 0) {
    waiting_ = true;
    return false;
  }
  --queued_;
  start_scanners();
  return true;
}

void ScanFeed::on_event(std::uint64_t /*tag*/) {
  --scanning_;
  ++queued_;
  start_scanners();
  if (waiting_) {
    waiting_ = false;
    consumer_.on_event(consumer_tag_);
  }
}

// A scanner thread starts a batch while rows are left and the queue has room
// for it once scanned; a thread that would find it full holds its batch and
// waits, which comes to the same: at most queue + threads batches scanned or
// being scanned ahead of the sender.
void ScanFeed::start_scanners() {
  while (rows_left_ > 0 && scanning_ < shape_.threads && queued_ + scanning_ < shape_.queue + shape_.threads) {
    const std::int64_t rows = std::min(rows_left_, shape_.rows_per_batch);
    rows_left_ -= rows;
    ++scanning_;
    const double ns = static_cast<double>(rows) * shape_.ns_per_row;
    context_.cpu.produce += ns * 1e-9;
    context_.cpu_pool(host_).start_yielding(std::max<SimTime>(1, to_ns(ns)), kScannerSlice, this, 0);
  }
}

}  // namespace exsim::sim
