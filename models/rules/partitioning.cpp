#include "models/rules/partitioning.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "models/base/random.h"

namespace exsim {

std::int64_t sender_rows(const Exchange& exchange, int sender) {
  const int count = exchange.senders.instances();
  return exchange.rows / count + (sender < exchange.rows % count ? 1 : 0);
}

std::uint64_t exchange_seed(const Scenario& scenario, std::size_t query, int repetition, std::size_t exchange) {
  return derive_seed(scenario.seed, query, static_cast<std::uint64_t>(repetition), exchange);
}

std::uint64_t sender_seed(std::uint64_t exchange_seed, int sender) {
  return derive_seed(exchange_seed, 0x73656e64 /* send */, static_cast<std::uint64_t>(sender));
}

std::vector<double> zipf_shares(int instances, double skew, std::uint64_t seed) {
  std::vector<double> weight(static_cast<std::size_t>(instances));
  double total = 0;
  for (int rank = 0; rank < instances; ++rank) {
    weight[rank] = skew == 0 ? 1.0 : 1.0 / std::pow(rank + 1.0, skew);
    total += weight[rank];
  }
  // Fisher-Yates: which instance holds which rank.
  std::vector<int> order(static_cast<std::size_t>(instances));
  std::iota(order.begin(), order.end(), 0);
  Random random(seed);
  for (int i = instances - 1; i > 0; --i) std::swap(order[i], order[random.below(static_cast<std::uint64_t>(i) + 1)]);
  std::vector<double> shares(static_cast<std::size_t>(instances));
  for (int rank = 0; rank < instances; ++rank) shares[order[rank]] = weight[rank] / total;
  return shares;
}

std::vector<double> receiver_shares(const Exchange& exchange, std::uint64_t exchange_seed) {
  return zipf_shares(exchange.receivers.instances(), exchange.skew, derive_seed(exchange_seed, 0x7a697066 /* zipf */));
}

std::vector<int> broadcast_order(int channels, Random& random) {
  std::vector<int> order(static_cast<std::size_t>(std::max(channels, 0)));
  std::iota(order.begin(), order.end(), 0);
  for (int i = channels - 1; i > 0; --i) std::swap(order[i], order[random.below(static_cast<std::uint64_t>(i) + 1)]);
  return order;
}

}  // namespace exsim
