// Timeline traces in the Chrome trace event format, which Perfetto and
// chrome://tracing open: a process per host, a track (thread) per sender
// instance, per channel and per receiver instance, and complete spans on them.
// The simulator and the real exchange use the same span names, so their traces
// of one scenario compare side by side:
//   serialize, compress, send (a sender thread's CPU), blocked (a sender thread
//   waiting for a channel), rpc in flight (a channel's call, sent to answered),
//   deferred (a call a receiver held back for room).
//
// Sampling: a trace keeps at most `max_events` spans. When a run makes more,
// only spans whose sequence number is a multiple of 2^k are kept, k the
// smallest that fits (each time the budget fills, k grows by one and half the
// kept spans go), so the sample is uniform over the run; otherData says 1 in 2^k.
#ifndef EXSIM_MODELS_RESULTS_TRACE_H_
#define EXSIM_MODELS_RESULTS_TRACE_H_

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace exsim {

class Trace {
 public:
  static constexpr std::size_t kDefaultMaxEvents = 400'000;  // about 45 MB of JSON
  explicit Trace(std::size_t max_events = kDefaultMaxEvents) : max_events_(max_events) {}

  // A new track in process `pid` (named `process` on first use); returns its tid.
  int track(int pid, const std::string& process, const std::string& name);
  // A span [start_ns, end_ns) on a track. `name` must outlive the trace (a literal).
  // `rows`, `bytes`: shown as its args when not negative.
  void span(int pid, int tid, const char* name, std::int64_t start_ns, std::int64_t end_ns, std::int64_t rows = -1,
            std::int64_t bytes = -1);

  // Adds another trace's tracks and spans (its JSON, as to_json writes it) as
  // process `pid` named `process`, its times shifted by `offset_ns`. Spans with
  // names other than the six above are skipped. std::runtime_error when it is not a trace.
  void absorb(const std::string& trace_json, int pid, const std::string& process, std::int64_t offset_ns = 0);

  std::size_t kept() const { return events_.size(); }
  std::uint64_t offered() const { return next_seq_; }
  int sampling_shift() const { return shift_; }

  // The trace as JSON: {"traceEvents": [...], "displayTimeUnit": "ms", "otherData": {...}}.
  std::string to_json(const std::string& source) const;

 private:
  struct Event {
    std::uint64_t seq;
    std::int64_t start, dur, rows, bytes;
    const char* name;
    int pid, tid;
  };
  std::size_t max_events_;
  std::vector<Event> events_;
  std::uint64_t next_seq_ = 0;
  int shift_ = 0;
  std::map<int, std::string> processes_;
  std::map<std::pair<int, int>, std::string> threads_;
  std::map<int, int> next_tid_;
};

}  // namespace exsim

#endif  // EXSIM_MODELS_RESULTS_TRACE_H_
