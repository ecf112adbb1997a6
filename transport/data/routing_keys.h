// The partitioning keys of a hash exchange's rows, and the routing by them.
//
// Impala's hash sender routes each row by the hash of its partition
// expressions, modulo the channel count (KrpcDataStreamSender's
// HashAndAddRows, krpc-data-stream-sender.cc). The keys arrive with the rows: choosing them
// is the child operator's work, not the sender's. So the real exchange writes
// each row's key as the operator feeding the sender (the produce stage), drawn
// so that the rows follow the scenario's shares of the receiver instances, and
// the sender's routing does what Impala's does: read the key, hash it, take it
// modulo the channel count.
//
// Drawing a channel by its share is O(1) (Vose's alias method): a search over
// the cumulative shares costs an unpredictable branch per halving, which grew
// with the fan-out (14 ns a row among 3 channels, 36 among 81) and was counted
// as routing, which Impala does not pay.
#ifndef EXSIM_TRANSPORT_DATA_ROUTING_KEYS_H_
#define EXSIM_TRANSPORT_DATA_ROUTING_KEYS_H_

#include <cstdint>
#include <cstring>
#include <vector>

#include "models/base/random.h"
#include "transport/wire/row_batch.h"

namespace exsim::transport {

class RoutingKeys {
 public:
  // `shares`: each channel's share of the rows (any positive scale);
  // `key_bytes`: the leading bytes of a row that hold its key (1 to 8).
  // Throws std::invalid_argument when keys that fit `key_bytes` cannot reach
  // every channel.
  RoutingKeys(const std::vector<double>& shares, int key_bytes, std::uint64_t seed);

  // Writes a key into every row of `batch`.
  void write(RowBatch& batch);

  // The channel a row goes to: its key's hash modulo the channel count.
  int channel_of(const char* row) const {
    std::uint64_t key = 0;
    std::memcpy(&key, row, key_bytes_);
    return static_cast<int>(hash(key) % channels_);
  }

  static std::uint64_t hash(std::uint64_t key) {
    std::uint64_t state = key;
    return splitmix64(state);
  }

 private:
  std::uint64_t draw_key();

  std::size_t key_bytes_;
  std::uint64_t channels_;
  // Keys that hash to each channel (kKeysPerChannel each).
  std::vector<std::uint64_t> keys_;
  // The alias table: channel c is kept with probability keep_[c], else alias_[c].
  std::vector<double> keep_;
  std::vector<std::uint32_t> alias_;
  Random random_;
};

}  // namespace exsim::transport

#endif  // EXSIM_TRANSPORT_DATA_ROUTING_KEYS_H_
