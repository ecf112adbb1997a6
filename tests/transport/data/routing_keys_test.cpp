// The hash exchange's keys: rows follow the scenario's shares, routing is the
// key's hash modulo the channels, and the same seed gives the same keys.
#include <doctest/doctest.h>

#include <cstring>
#include <stdexcept>
#include <vector>

#include "transport/data/routing_keys.h"
#include "transport/data/row_generator.h"

namespace exsim::transport {
namespace {

RowBatch rows_of(std::int64_t n) {
  RowGenerator generator(RowShape{16, VarLenDistribution::fixed(8)}, 1.0, 3);
  RowBatch batch;
  generator.fill(batch, n);
  return batch;
}

std::vector<int> counts(RoutingKeys& keys, const RowBatch& batch, std::size_t channels) {
  std::vector<int> by_channel(channels, 0);
  for (std::uint32_t r = 0; r < batch.rows(); ++r) ++by_channel[keys.channel_of(batch.data().data() + batch.offsets()[r])];
  return by_channel;
}

TEST_CASE("rows routed by their keys follow the channels' shares") {
  const std::vector<double> shares = {1, 2, 3, 4, 0};  // the last gets none
  RoutingKeys keys(shares, 8, 7);
  RowBatch batch = rows_of(100000);
  keys.write(batch);
  const std::vector<int> got = counts(keys, batch, shares.size());
  for (std::size_t c = 0; c < shares.size(); ++c) {
    CHECK(got[c] == doctest::Approx(100000 * shares[c] / 10).epsilon(0.03));
  }
  CHECK(got[4] == 0);
}

TEST_CASE("a row's channel is its key's hash modulo the channels") {
  RoutingKeys keys(std::vector<double>(81, 1.0), 8, 1);
  RowBatch batch = rows_of(2000);
  keys.write(batch);
  for (std::uint32_t r = 0; r < batch.rows(); ++r) {
    std::uint64_t key = 0;
    std::memcpy(&key, batch.data().data() + batch.offsets()[r], 8);
    CHECK(keys.channel_of(batch.data().data() + batch.offsets()[r]) == static_cast<int>(RoutingKeys::hash(key) % 81));
  }
  // Every channel is reached.
  RowBatch more = rows_of(20000);
  keys.write(more);
  for (int n : counts(keys, more, 81)) CHECK(n > 0);
}

TEST_CASE("the same seed writes the same keys; narrow keys still reach every channel") {
  RoutingKeys a(std::vector<double>(12, 1.0), 2, 5), b(std::vector<double>(12, 1.0), 2, 5);
  RowBatch x = rows_of(500), y = rows_of(500);
  a.write(x);
  b.write(y);
  CHECK(x.data() == y.data());
  for (int n : counts(a, x, 12)) CHECK(n > 0);
  CHECK_THROWS_AS(RoutingKeys(std::vector<double>(300, 1.0), 1, 1), std::invalid_argument);
}

}  // namespace
}  // namespace exsim::transport
