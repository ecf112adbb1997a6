#include "sim/run_record.h"

#include <algorithm>

#include "sim/exchange/sender.h"

namespace exsim::sim {

RecordedRun record_run(const ExchangeRun& run, const std::string& query, int repetition) {
  RecordedRun recorded;
  const ExchangeStats& s = run.stats();
  ExchangeResult& x = recorded.result;
  x.query = query;
  x.id = run.exchange().id;
  x.kind = to_string(run.exchange().kind);
  x.repetition = repetition;
  x.wall_s = static_cast<double>(run.finished_at() - run.started_at()) * 1e-9;
  x.rows = s.rows_delivered;
  x.rpcs = s.rpcs;
  x.eos_rpcs = s.eos_rpcs;
  x.bytes_wire = s.bytes_wire;
  x.bytes_uncompressed = s.bytes_uncompressed;
  x.sender_blocked_s = static_cast<double>(s.blocked_ns) * 1e-9;
  x.deferred_rpcs = s.deferred_rpcs;
  if (s.rpcs > 0) {
    x.rpc_network_us_mean = static_cast<double>(s.network_ns) * 1e-3 / static_cast<double>(s.rpcs);
    x.rpc_receiver_us_mean = static_cast<double>(s.receiver_ns) * 1e-3 / static_cast<double>(s.rpcs);
  }
  for (std::size_t b = 0; b < kBounds; ++b) x.sender_time.seconds[b] = static_cast<double>(s.sender_time_ns[b]) * 1e-9;
  // After the last sender's end of stream is answered, the receivers still
  // drain their queues: every sender instance waits on the consumers.
  x.sender_time[Bound::kConsumer] += static_cast<double>((run.finished_at() - s.last_sender_done) *
                                                         static_cast<SimTime>(run.senders().size())) * 1e-9;
  x.sender_instance_peak_bytes = 0;
  for (const auto& sender : run.senders()) {
    x.sender_instance_peak_bytes = std::max(x.sender_instance_peak_bytes, sender->peak_bytes());
    x.impala_tracked_peak_bytes = std::max(x.impala_tracked_peak_bytes, sender->tracked_peak_bytes());
  }
  recorded.track = EventRun::Track{run.started_at(), run.finished_at(), 0, 0, s.middle, s.marks};
  for (const auto& sender : run.senders()) {
    recorded.track.rooms += sender->buffer_rooms();
    recorded.track.outbound += sender->outbound_buffers();
    recorded.sender_peaks.emplace_back(sender->host(), sender->peak_bytes());
  }
  return recorded;
}

}  // namespace exsim::sim
