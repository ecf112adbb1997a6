#include "transport/data/routing_keys.h"

#include <algorithm>
#include <numeric>
#include <stdexcept>

#include <fmt/format.h>

namespace exsim::transport {
namespace {

// Distinct keys per channel: the rows of one channel do not all carry one key.
constexpr std::size_t kKeysPerChannel = 8;

}  // namespace

RoutingKeys::RoutingKeys(const std::vector<double>& shares, int key_bytes, std::uint64_t seed)
    : key_bytes_(static_cast<std::size_t>(std::clamp(key_bytes, 1, 8))),
      channels_(shares.size()),
      keys_(shares.size() * kKeysPerChannel),
      keep_(shares.size()),
      alias_(shares.size()),
      random_(seed) {
  if (shares.empty()) throw std::invalid_argument("routing keys: no channel");
  const std::uint64_t key_mask = key_bytes_ == 8 ? ~std::uint64_t{0} : (std::uint64_t{1} << (8 * key_bytes_)) - 1;
  std::vector<std::size_t> found(shares.size(), 0);
  std::size_t full = 0;
  for (std::uint64_t k = 1; full < shares.size() && k <= std::min<std::uint64_t>(key_mask, 1ULL << 26); ++k) {
    const std::size_t c = hash(k & key_mask) % channels_;
    if (found[c] < kKeysPerChannel) {
      keys_[c * kKeysPerChannel + found[c]] = k & key_mask;
      if (++found[c] == kKeysPerChannel) ++full;
    }
  }
  for (std::size_t c = 0; c < shares.size(); ++c) {
    if (found[c] == 0) {
      throw std::invalid_argument(
          fmt::format("rows of {} key byte(s) cannot hold keys for {} receiver instances", key_bytes_, shares.size()));
    }
    // Fewer than kKeysPerChannel found (a narrow key): repeat those there are.
    for (std::size_t i = found[c]; i < kKeysPerChannel; ++i) keys_[c * kKeysPerChannel + i] = keys_[c * kKeysPerChannel + i % found[c]];
  }
  // Vose's alias table over the shares scaled to a mean of 1.
  const double sum = std::accumulate(shares.begin(), shares.end(), 0.0);
  const double n = static_cast<double>(shares.size());
  std::vector<double> scaled(shares.size());
  std::vector<std::uint32_t> small, large;
  for (std::size_t c = 0; c < shares.size(); ++c) {
    scaled[c] = sum > 0 ? std::max(0.0, shares[c]) * n / sum : 1.0;
    (scaled[c] < 1.0 ? small : large).push_back(static_cast<std::uint32_t>(c));
  }
  while (!small.empty() && !large.empty()) {
    const std::uint32_t s = small.back(), l = large.back();
    small.pop_back();
    keep_[s] = scaled[s];
    alias_[s] = l;
    scaled[l] -= 1.0 - scaled[s];
    if (scaled[l] < 1.0) {
      large.pop_back();
      small.push_back(l);
    }
  }
  // What is left keeps itself (rounding leaves some at just under or over 1).
  for (std::uint32_t c : large) keep_[c] = 1.0, alias_[c] = c;
  for (std::uint32_t c : small) keep_[c] = 1.0, alias_[c] = c;
}

std::uint64_t RoutingKeys::draw_key() {
  const std::uint64_t draw = random_.next();
  // The top bits pick a column, the low 53 the coin: one draw a row.
  const std::size_t column = static_cast<std::size_t>((static_cast<Uint128>(draw) * channels_) >> 64);
  const double coin = static_cast<double>(draw & ((std::uint64_t{1} << 53) - 1)) * 0x1.0p-53;
  const std::size_t c = coin < keep_[column] ? column : alias_[column];
  return keys_[c * kKeysPerChannel + (draw >> 20) % kKeysPerChannel];
}

void RoutingKeys::write(RowBatch& batch) {
  const std::uint32_t rows = batch.rows();
  const auto& offsets = batch.offsets();
  char* data = batch.mutable_data().data();
  for (std::uint32_t r = 0; r < rows; ++r) {
    const std::uint64_t key = draw_key();
    std::memcpy(data + offsets[r], &key, key_bytes_);
  }
}

}  // namespace exsim::transport
