// What the caches cost the model, against closed forms derived by hand: a hash
// sender's routing as its channels' batches leave the shared cache, its
// appending at its own rate and the core's own cache, and a receiver's decode
// of evicted batches. The round-number costs of analytic_scenarios.h.
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "models/rules/cache_load.h"
#include "sim/simulate.h"
#include "tests/sim/analytic_scenarios.h"
#include "tests/test_util.h"

namespace exsim {
namespace {

using test::one_channel;
using test::run;

TEST_CASE("routing pays for the lines its channels' batches lost to the cache, as their working set grows") {
  // 12 channels of 100 B rows, 120000 rows, one RPC in flight: each channel
  // holds the batch being filled and one outbound, full. fixed_len batches: 16K
  // holds 163 rows (16300 B and 652 B of offsets), 128K 1310 rows (131000 B and
  // 5240 B). The working set is 12 x 2 x those. A cache of 1 MiB loses
  // 1 - exp(-W / 1 MiB) of the lines; of 12 streams a prefetcher tracking 6
  // holds each with probability 6 / 12, which exposes 0.2 + 0.8 x (1 - 6 / 12)
  // = 0.6 of a miss; a miss costs 10 ns + 0.5 ns a
  // byte, 60 ns for these rows. Beyond the 100 ns of copying a row, that is it.
  const std::vector<std::string> cache = {"costs.cache_bytes=1M", "costs.prefetch_streams=6",
                                          "costs.prefetched_miss_share=0.2", "costs.cache_miss_row_ns=10",
                                          "costs.cache_miss_byte_ns=0.5"};
  const auto json_of = [](const char* buffer) {
    const std::string json = one_channel(fmt::format(R"({{"buffer": {{"flat": "{}"}}, "capacity": "fixed_len",
                                                         "compression": "none"}})", buffer), 120000);
    return test::with_value(json, "/workload/queries/0/exchanges/0/receivers/per_host", "12");
  };
  const auto expected_s = [](double working_set) {
    return 120000 * (100 + (1 - std::exp(-working_set / 1048576.0)) * 0.6 * 60) * 1e-9;
  };
  const double small = 12 * 2 * (16300 + 652), large = 12 * 2 * (131000 + 5240);
  const Scenario scenario = test::scenario_from(json_of("16K"), cache);
  const std::vector<CacheLoad> load =
      sender_cache_load(scenario, scenario.policies[0], scenario.queries[0].exchanges[0]);
  CHECK(load[0].working_set == small);
  CHECK(load[0].streams == 12);
  CHECK(run(json_of("16K"), cache).cpu_s.serialize == doctest::Approx(expected_s(small)));
  CHECK(run(json_of("128K"), cache).cpu_s.serialize == doctest::Approx(expected_s(large)));
  // Without a cache model, the batches' size does not matter.
  CHECK(run(json_of("128K")).cpu_s.serialize == doctest::Approx(120000 * 100e-9));
}

TEST_CASE("a hash sender appends a row's bytes at its own rate; whole-batch senders copy at serialize_bytes_per_s") {
  // The same 12 channels of 100 B rows, no cache model. Appending at 4 GB/s
  // instead of the whole-batch 1 GB/s: 25 ns a row instead of 100.
  const auto json_of = [](const char* kind) {
    std::string json = one_channel(R"({"buffer": {"flat": "16K"}, "capacity": "fixed_len", "compression": "none"})",
                                   120000);
    json = test::with_value(json, "/workload/queries/0/exchanges/0/kind", fmt::format(R"("{}")", kind));
    return test::with_value(json, "/workload/queries/0/exchanges/0/receivers/per_host", "12");
  };
  const std::vector<std::string> append = {"costs.append_bytes_per_s=4e9"};
  CHECK(run(json_of("hash"), append).cpu_s.serialize == doctest::Approx(120000 * 25e-9));
  CHECK(run(json_of("hash")).cpu_s.serialize == doctest::Approx(120000 * 100e-9));
  const double random = run(json_of("random")).cpu_s.serialize;
  CHECK(random > 0);
  CHECK(run(json_of("random"), append).cpu_s.serialize == doctest::Approx(random));
}

TEST_CASE("a hash sender pays the core's misses a byte as its own buffers outgrow the core's cache") {
  // 12 channels of 100 B rows, one in flight (the batch being filled and one
  // outbound a channel: 16K holds 163 rows, 16300 B and 652 B of offsets; 128K
  // 1310 rows, 131000 B and 5240 B). A core cache of 256 KiB and 0.2 ns a byte
  // of a line it lost: 100 x 0.2 x (1 - exp(-W / 256 KiB)) more a row, W one
  // sender's own buffers, beyond 100 ns of appending.
  const auto json_of = [](const char* buffer) {
    const std::string json = one_channel(fmt::format(R"({{"buffer": {{"flat": "{}"}}, "capacity": "fixed_len",
                                                         "compression": "none"}})", buffer), 120000);
    return test::with_value(json, "/workload/queries/0/exchanges/0/receivers/per_host", "12");
  };
  const std::vector<std::string> core = {"costs.core_cache_bytes=256K", "costs.core_miss_byte_ns=0.2"};
  const double small = 12 * 2 * (16300 + 652), large = 12 * 2 * (131000 + 5240);
  const auto expected_s = [](double own) { return 120000 * (100 + 100 * 0.2 * (1 - std::exp(-own / 262144.0))) * 1e-9; };
  const Scenario scenario = test::scenario_from(json_of("128K"), core);
  CHECK(sender_cache_load(scenario, scenario.policies[0], scenario.queries[0].exchanges[0])[0].own_working_set ==
        large);
  CHECK(run(json_of("16K"), core).cpu_s.serialize == doctest::Approx(expected_s(small)));
  CHECK(run(json_of("128K"), core).cpu_s.serialize == doctest::Approx(expected_s(large)));
  // No core cache, no such cost.
  CHECK(run(json_of("128K"), {"costs.core_miss_byte_ns=0.2"}).cpu_s.serialize == doctest::Approx(120000 * 100e-9));
}

TEST_CASE("a received batch pays decode_miss_byte_ns a byte it deserializes, times the share its host's cache evicts") {
  // The cache case above at 128K, its hosts one machine so that the
  // receivers' host shares the senders' cache. The extra deserialization is
  // proportional to decode_miss_byte_ns, and to 1 - exp(-W / cache): against a
  // cache so small that it evicts everything, a 1 MiB one charges that share.
  std::vector<std::string> base = {"costs.prefetch_streams=12", "costs.prefetched_miss_share=0.2",
                                   "costs.cache_miss_row_ns=10", "costs.cache_miss_byte_ns=0.5", "costs.cores=1",
                                   "costs.fresh_memory_byte_ns=0",  // queues that differ fault alike
                                   "costs.decode_miss_byte_ns=0"};  // not the reference's
  const std::string json = test::with_value(
      one_channel(R"({"buffer": {"flat": "128K"}, "capacity": "fixed_len", "compression": "none"})", 120000),
      "/workload/queries/0/exchanges/0/receivers/per_host", "12");
  const auto extra_s = [&](const char* cache, const char* miss) {
    std::vector<std::string> with = base, without = base;
    with.push_back(cache);
    without.push_back(cache);
    with.push_back(miss);  // after base's 0: the later setting holds
    return run(json, with).cpu_s.deserialize - run(json, without).cpu_s.deserialize;
  };
  const double all = extra_s("costs.cache_bytes=1K", "costs.decode_miss_byte_ns=2");
  CHECK(all > 0);
  CHECK(extra_s("costs.cache_bytes=1K", "costs.decode_miss_byte_ns=4") == doctest::Approx(2 * all));
  std::vector<std::string> one_mib = base;
  one_mib.push_back("costs.cache_bytes=1M");
  const Scenario scenario = test::scenario_from(json, one_mib);
  const double working_set =
      sender_cache_load(scenario, scenario.policies[0], scenario.queries[0].exchanges[0])[0].working_set;
  CHECK(extra_s("costs.cache_bytes=1M", "costs.decode_miss_byte_ns=2") ==
        doctest::Approx(all * (1 - std::exp(-working_set / 1048576.0))));
}

}  // namespace
}  // namespace exsim
