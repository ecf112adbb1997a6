// What a profile measured of one exchange, its senders and its receivers: the
// counters an imported scenario is built from, replay compares the model with,
// and costs are derived from. Summed over the instance sections, or a section
// that stands for several (an averaged fragment's, an aggregated one's: its
// mean) times their count.
#ifndef EXSIM_MODELS_IMPALA_EXCHANGE_COUNTERS_H_
#define EXSIM_MODELS_IMPALA_EXCHANGE_COUNTERS_H_

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "models/impala/impala_profile.h"

namespace exsim {

struct SenderCounters {
  std::optional<double> rows;             // RowsSent (or RowsReturned)
  std::string rows_counter;               // which of the two
  std::optional<double> bytes_sent;       // TotalBytesSent (or BytesSent): as sent, compressed or not
  std::optional<double> uncompressed;     // UncompressedRowBatchSize: tuple bytes and offsets
  std::optional<double> serialize_ns;     // SerializeBatchTime (LZ4 included)
  std::optional<double> rpcs;             // RpcSuccess: calls answered, TransmitData and EndDataStream
  std::optional<double> eos_rpcs;         // EosSent
  std::optional<double> peak_memory_max;  // the largest instance's PeakMemoryUsage
  std::optional<double> total_ns;         // the sections' "(Total: ...)": time in the sender, not its producer
  std::optional<ProfileStat> network;     // RpcNetworkTime per call, over every instance's calls
  std::optional<ProfileStat> receiver;    // RpcRecvrTime per call
};

// `sections`, each standing for `multiplier` instances. A counter missing from
// any section is nullopt; a malformed one throws InputError (file and line).
SenderCounters sender_counters(const ImpalaProfile& profile, const std::vector<const ProfileSection*>& sections,
                               int multiplier);

// An EXCHANGE_NODE's receiver, from its "Enqueue" part (krpc-data-stream-recvr.cc).
struct ReceiverCounters {
  std::optional<double> deserialize_ns;  // DeserializeRowBatchTime: LZ4 and deserialization of every batch
  std::optional<double> batches;         // TotalBatchesReceived
  std::optional<double> deferred;        // TotalRPCsDeferred: calls held until the queue had room
};

// `sections` (EXCHANGE_NODEs), each with the multiplier of the instances it stands for.
ReceiverCounters receiver_counters(const ImpalaProfile& profile,
                                   const std::vector<std::pair<const ProfileSection*, int>>& sections);

}  // namespace exsim

#endif  // EXSIM_MODELS_IMPALA_EXCHANGE_COUNTERS_H_
