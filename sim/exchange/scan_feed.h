// The scanner threads of one sender instance at mt_dop 0 (Impala's HDFS scan
// node, models/rules/scan_feed.h). They scan the sender's rows an input batch
// at a time, each a CPU step on the host's cores, and queue what they scanned;
// the sender takes one batch at a time and, when none is queued, waits for
// the next. A full queue stops the scanners, as Impala's blocking queue does:
// at most `queue` scanned batches wait, plus one a scanner has finished.
#ifndef EXSIM_SIM_EXCHANGE_SCAN_FEED_H_
#define EXSIM_SIM_EXCHANGE_SCAN_FEED_H_

#include <cstdint>

#include "models/rules/scan_feed.h"
#include "sim/engine/simulator.h"

namespace exsim::sim {

struct ModelContext;

class ScanFeed final : public EventHandler {
 public:
  // A scanner thread scans batch after batch, so Linux preempts it for a
  // thread that wakes (CFS wake-up preemption: the sender it feeds, a call's
  // receiver work): it yields its core every 50 us here. A woken sender then
  // waits 25 us on average behind a scanner, the order of a wake-up on a loaded
  // host, where a first-come queue made it wait for the scanner's batch (docs/
  // validation.md, "A woken thread waits behind a busy one"). Shorter slices
  // cost the simulator an event each.
  static constexpr SimTime kScannerSlice = 50'000;

  // `scanned` is called back (tag `tag`, at the time) when a batch is queued
  // while the sender waits for one.
  ScanFeed(ModelContext& context, int host, const ScanShape& shape, EventHandler& scanned, std::uint64_t tag);

  // Sets the scanner threads going.
  void start() { start_scanners(); }
  // Takes the next scanned batch; false when none is queued yet (the sender is
  // then called back once one is).
  bool take();
  // A scanner thread has finished its batch.
  void on_event(std::uint64_t tag) override;

 private:
  void start_scanners();

  ModelContext& context_;
  const int host_;
  const ScanShape shape_;
  EventHandler& consumer_;
  const std::uint64_t consumer_tag_;
  std::int64_t rows_left_;  // not yet being scanned
  int scanning_ = 0;        // scanner threads at work
  std::int64_t queued_ = 0; // scanned batches not taken yet
  bool waiting_ = false;    // the sender waits for a batch
};

}  // namespace exsim::sim

#endif  // EXSIM_SIM_EXCHANGE_SCAN_FEED_H_
