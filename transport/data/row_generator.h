// Synthetic rows for the real exchange: each row has the exchange's fixed part
// plus var-len bytes drawn from its distribution, and the bytes have controlled
// entropy so that LZ4 compresses them to about the exchange's lz4_ratio. Every
// 32-byte piece is either random (incompressible) or copied from a small fixed
// dictionary (a long match, compressible); the share of random pieces is
// calibrated against LZ4 itself.
#ifndef EXSIM_TRANSPORT_DATA_ROW_GENERATOR_H_
#define EXSIM_TRANSPORT_DATA_ROW_GENERATOR_H_

#include <array>
#include <cstdint>
#include <vector>

#include "models/base/random.h"
#include "models/scenario/scenario.h"
#include "transport/wire/row_batch.h"

namespace exsim::transport {

class RowGenerator {
 public:
  // `random_share`: fraction of pieces that are random (see calibrate_random_share).
  RowGenerator(const RowShape& row, double random_share, std::uint64_t seed);

  // Where a batch's random pieces are, to make them fresh again (refresh).
  struct Piece {
    std::uint32_t at;  // offset in the batch's tuple data
    std::uint32_t bytes;
  };

  // Appends `rows` rows to `batch`; with `random_pieces`, records where their
  // random pieces went.
  void fill(RowBatch& batch, std::int64_t rows, std::vector<Piece>* random_pieces = nullptr);

  // Writes new random bytes over `batch`'s random pieces: a batch used again
  // then repeats only its dictionary pieces, which match the dictionary's
  // other copies anyway, so that LZ4 does not find whole rows of a batch sent
  // before (a channel whose batch spans more input batches than the sender
  // reuses would compress them as long matches).
  void refresh(RowBatch& batch, const std::vector<Piece>& random_pieces);

 private:
  void write(char* out, std::size_t bytes, std::vector<Piece>* random_pieces, std::size_t at);

  RowShape row_;
  Random random_;
  static constexpr std::size_t kPiece = 32;
  std::uint64_t threshold_;  // a piece is random when its draw is below this
  std::array<char, 4096> dictionary_;
};

struct RandomShareFit {
  double random_share = 1.0;
  double achieved_ratio = 1.0;  // LZ4 ratio of sample batches at that share
};

// Finds the random share that makes LZ4 compress sample batches of `row` to
// `target_ratio` (bisection on 256 KiB samples, in batches of `batch_bytes`).
// Ratios at or above 1 give all-random data. With `key_range` > 0 each sample
// row's first (up to 8) bytes are overwritten by a key below `key_range`, as a
// hash sender writes its routing keys, which breaks some of LZ4's matches.
RandomShareFit calibrate_random_share(const RowShape& row, double target_ratio, std::uint64_t seed,
                                   std::size_t batch_bytes = 64 * 1024, std::uint64_t key_range = 0);

// The random share for exchange `exchange` of query `query` under `policy`:
// calibrated on batches of the size its channels send, since LZ4 compresses
// small batches less well than large ones. Depends only on the scenario, so
// every host computes the same.
double random_share_for(const Scenario& scenario, const Policy& policy, std::size_t query, std::size_t exchange);

}  // namespace exsim::transport

#endif  // EXSIM_TRANSPORT_DATA_ROW_GENERATOR_H_
