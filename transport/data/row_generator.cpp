#include "transport/data/row_generator.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "models/rules/partitioning.h"
#include "models/rules/sizing_policy.h"
#include "transport/wire/lz4_codec.h"

namespace exsim::transport {

RowGenerator::RowGenerator(const RowShape& row, double random_share, std::uint64_t seed)
    : row_(row), random_(seed) {
  const double share = std::clamp(random_share, 0.0, 1.0);
  threshold_ = share >= 1.0 ? UINT64_MAX : static_cast<std::uint64_t>(share * 0x1p64);
  Random words(seed ^ 0x64696374ULL);  // "dict"
  for (auto& c : dictionary_) c = static_cast<char>(words.next());
}

void RowGenerator::write(char* out, std::size_t bytes, std::vector<Piece>* random_pieces, std::size_t at) {
  // 32-byte pieces, each either random or copied from a fixed dictionary: a copy
  // is a long LZ4 match (a few bytes of output), a random piece does not shrink.
  for (std::size_t i = 0; i < bytes; i += kPiece) {
    const std::size_t n = std::min(kPiece, bytes - i);
    const std::uint64_t draw = random_.next();
    if (draw < threshold_) {
      if (random_pieces) random_pieces->push_back({static_cast<std::uint32_t>(at + i), static_cast<std::uint32_t>(n)});
      for (std::size_t k = 0; k < n; k += 8) {
        const std::uint64_t word = random_.next();
        std::memcpy(out + i + k, &word, std::min<std::size_t>(8, n - k));
      }
    } else {
      const std::size_t from = (draw >> 16) % (dictionary_.size() - kPiece);
      std::memcpy(out + i, dictionary_.data() + from, n);
    }
  }
}

void RowGenerator::fill(RowBatch& batch, std::int64_t rows, std::vector<Piece>* random_pieces) {
  const auto fixed = static_cast<std::size_t>(row_.fixed_bytes);
  for (std::int64_t r = 0; r < rows; ++r) {
    const auto varlen = static_cast<std::size_t>(std::llround(row_.varlen.draw(random_)));
    const std::size_t at = batch.tuple_bytes();
    write(batch.append_row(fixed + varlen), fixed + varlen, random_pieces, at);
  }
}

void RowGenerator::refresh(RowBatch& batch, const std::vector<Piece>& random_pieces) {
  char* data = batch.mutable_data().data();
  for (const Piece& piece : random_pieces) {
    for (std::uint32_t k = 0; k < piece.bytes; k += 8) {
      const std::uint64_t word = random_.next();
      std::memcpy(data + piece.at + k, &word, std::min<std::uint32_t>(8, piece.bytes - k));
    }
  }
}

RandomShareFit calibrate_random_share(const RowShape& row, double target_ratio, std::uint64_t seed,
                                   std::size_t batch_bytes, std::uint64_t key_range) {
  const auto key_bytes = static_cast<std::size_t>(std::min<Bytes>(8, row.fixed_bytes));
  Lz4Codec codec;
  RowBatch batch;
  std::vector<char> out;
  const double row_bytes = static_cast<double>(row.fixed_bytes) + row.varlen.mean();
  const auto rows_per_batch = static_cast<std::int64_t>(std::max(1.0, static_cast<double>(batch_bytes) / row_bytes));
  auto ratio_at = [&](double share) {
    RowGenerator generator(row, share, seed);
    Random keys(seed ^ 0x6b657973ULL);
    std::size_t in = 0, compressed = 0;
    while (in < 256 * 1024) {
      batch.clear();
      generator.fill(batch, rows_per_batch);
      if (key_range > 0) {
        for (std::uint32_t r = 0; r < batch.rows(); ++r) {
          const std::uint64_t key = 1 + keys.below(key_range);
          std::memcpy(batch.mutable_data().data() + batch.offsets()[r], &key, key_bytes);
        }
      }
      out.resize(Lz4Codec::bound(batch.tuple_bytes()));
      std::size_t size = codec.compress(batch.data().data(), batch.tuple_bytes(), out.data(), out.size());
      in += batch.tuple_bytes();
      compressed += size == 0 ? batch.tuple_bytes() : size;  // kept only if smaller
    }
    return static_cast<double>(compressed) / static_cast<double>(in);
  };
  RandomShareFit result;
  if (target_ratio >= 1.0) {
    result.achieved_ratio = ratio_at(1.0);
    return result;
  }
  double low = 0.0, high = 1.0;  // the ratio grows with the random share
  for (int i = 0; i < 14; ++i) {
    const double mid = 0.5 * (low + high);
    (ratio_at(mid) < target_ratio ? low : high) = mid;
  }
  result.random_share = 0.5 * (low + high);
  result.achieved_ratio = ratio_at(result.random_share);
  return result;
}

double random_share_for(const Scenario& scenario, const Policy& policy, std::size_t query, std::size_t exchange) {
  const Exchange& x = scenario.queries[query].exchanges[exchange];
  const Bytes batch = std::max<Bytes>(1024, typical_batch(policy, x).tuple_bytes);
  // A hash sender's keys come from pools of 8 per receiver instance, found by
  // counting up from 1 (sender_side.cpp): small numbers.
  const std::uint64_t key_range =
      x.send_path() == PartitionKind::kHash ? 16 * static_cast<std::uint64_t>(x.receivers.instances()) : 0;
  return calibrate_random_share(x.row, x.lz4_ratio, exchange_seed(scenario, query, 0, exchange),
                                static_cast<std::size_t>(batch), key_range)
      .random_share;
}

}  // namespace exsim::transport
