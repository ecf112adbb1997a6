// An exchange sizing policy: how big each channel's batches are and what the
// sender does with them. Defaults are Impala's behaviour at HEAD
// (reference/impala-exchange.md section 10).
#ifndef EXSIM_MODELS_SCENARIO_POLICY_H_
#define EXSIM_MODELS_SCENARIO_POLICY_H_

#include <string>

#include "models/base/size.h"

namespace exsim {

// Tuple-data cap of one batch, RowBatch::AT_CAPACITY_MEM_USAGE (section 1.4).
inline constexpr Bytes kBatchHardCap = 8 * kMiB;
// Rows per operator (input) batch, the default batch_size (section 1.7).
inline constexpr std::int64_t kInputBatchRows = 1024;

struct BufferSizing {
  enum class Kind { kFlat, kBudget };
  Kind kind = Kind::kFlat;
  Bytes flat = 16 * kKiB;  // data_stream_sender_buffer_size (section 1.1)
  Bytes budget = 0;        // per sender instance
  Bytes min = 16 * kKiB;
  Bytes max = 256 * kKiB;
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
  Bytes receiver_buffer = 10 * kMiB;  // exchg_node_buffer_size_bytes (section 5.2)
  SenderLayout sender_layout = SenderLayout::kHead;
};

}  // namespace exsim

#endif  // EXSIM_MODELS_SCENARIO_POLICY_H_
