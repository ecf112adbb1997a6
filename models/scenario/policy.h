// An exchange sizing policy: how big each channel's batches are and what the
// sender does with them. Defaults are Impala's behaviour at HEAD
// (docs/impala.md §10).
#ifndef EXSIM_MODELS_SCENARIO_POLICY_H_
#define EXSIM_MODELS_SCENARIO_POLICY_H_

#include <string>

#include "models/base/size.h"

namespace exsim {

// Tuple-data cap of one batch, RowBatch::AT_CAPACITY_MEM_USAGE (docs/impala.md §1.4).
inline constexpr Bytes kBatchHardCap = 8 * kMiB;
// Rows per operator (input) batch, the default batch_size (docs/impala.md §1.7).
inline constexpr std::int64_t kInputBatchRows = 1024;

// IMPALA-15512's clamp of a budget policy's per-channel target: never below
// today's 16K, never past 256K (a budget's `min` and `max` by default).
inline constexpr Bytes kBudgetChannelMin = 16 * kKiB;
inline constexpr Bytes kBudgetChannelMax = 256 * kKiB;

struct BufferSizing {
  enum class Kind { kFlat, kBudget };
  Kind kind = Kind::kFlat;
  Bytes flat = 16 * kKiB;  // data_stream_sender_buffer_size (docs/impala.md §1.1)
  Bytes budget = 0;        // per sender instance
  Bytes min = kBudgetChannelMin;
  Bytes max = kBudgetChannelMax;
  bool operator==(const BufferSizing&) const = default;
};

enum class CapacityRule { kFixedLen, kBytes };
enum class Compression { kLz4, kLz4SkipLocal, kNone };
enum class BroadcastSerialize { kOnce, kPerChannel };
enum class SenderLayout { kHead, kV43 };

struct Policy {
  std::string name;
  BufferSizing buffer;
  CapacityRule capacity = CapacityRule::kFixedLen;
  int in_flight = 1;
  Compression compression = Compression::kLz4SkipLocal;
  BroadcastSerialize broadcast_serialize = BroadcastSerialize::kOnce;
  Bytes receiver_buffer = 10 * kMiB;  // exchg_node_buffer_size_bytes (docs/impala.md §5.2)
  SenderLayout sender_layout = SenderLayout::kHead;
  bool operator==(const Policy&) const = default;
};

}  // namespace exsim

#endif  // EXSIM_MODELS_SCENARIO_POLICY_H_
