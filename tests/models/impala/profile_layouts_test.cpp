// Impala's text layouts, on its own published profiles (tests/data/profiles/
// impala/README.md): the legacy one (an averaged fragment, then a section per
// instance), the aggregated one of Impala 4 and later (one section for all of a
// fragment's instances, counters "mean=... min=... max=...", the instances'
// hosts in an "Instances:" list), its extended form (each instance's value
// beside the mean), and a file of several profiles as impala-profile-tool
// prints it. The figures asserted are the files' own: summed over the instance
// sections, or the mean times the instances where only the mean is written.
#include <doctest/doctest.h>

#include <string>

#include <nlohmann/json.hpp>

#include "models/base/error.h"
#include "models/base/json_reader.h"
#include "models/impala/impala_profile.h"
#include "models/impala/profile_costs.h"
#include "models/impala/profile_titles.h"
#include "models/impala/row_layout.h"
#include "models/impala/profile_import.h"
#include "models/impala/exchange_counters.h"
#include "models/scenario/scenario_loader.h"

namespace exsim {
namespace {

ImportedScenario import_file(const std::string& name, const ProfileImportOptions& options = {}) {
  const std::string path = std::string(EXSIM_SOURCE_DIR) + "/tests/data/profiles/impala/" + name;
  return import_impala_profile(ImpalaProfile::parse(read_text_file(path, "profile"), path), options);
}

// LZ4's ratio from the counters' mixed one when a share `local` of the batches
// went to the sender's own daemon uncompressed (Impala 4.3 and later).
double lz4_of(double mixed, double local) { return (mixed - local) / (1 - local); }

const nlohmann::json& exchange(const nlohmann::json& scenario, std::size_t query, std::size_t index) {
  return scenario["workload"]["queries"][query]["exchanges"][index];
}

TEST_CASE("an aggregated counter reads as its mean") {
  CHECK(parse_profile_count("mean=152 (152) min=135 (135) max=166 (166)") == 152);
  CHECK(parse_profile_bytes("mean=2.17 KB (2227) min=1.89 KB (1934) max=2.72 KB (2788)") == 2227);
  CHECK(parse_profile_time_ns("mean=45.908us min=20.494us max=69.870us") == doctest::Approx(45908));
  CHECK_FALSE(parse_profile_count("mean=many min=1 max=2"));
}

TEST_CASE("the legacy layout: each exchange the sum of its instances' sections") {
  const ImportedScenario imported = import_file("compute_stats_legacy_q2.trimmed.txt");
  const auto scenario = nlohmann::json::parse(imported.json);
  REQUIRE(imported.exchanges == 2);
  REQUIRE(scenario["cluster"]["hosts"].size() == 3);  // three daemons of one machine
  const auto& hash = exchange(scenario, 0, 0);        // F00 to EXCHANGE_NODE 2
  CHECK(hash["id"] == "F00-x2");
  CHECK(hash["kind"] == "hash");  // 02:EXCHANGE [HASH(ss_sold_date_sk)]
  CHECK(hash["rows"] == 1824);    // RowsSent of its 12 instances
  CHECK(hash["row"]["fixed_bytes"] == 13);  // 38304 B uncompressed / 1824 rows - 8 B of tuple pointer
  // The tuple data's ratio: the bytes sent less 4 B of offset a row, the
  // uncompressed ones less 8 B of tuple pointer; and of each sender's 12
  // channels the 4 on its own daemon went uncompressed.
  CHECK(hash["lz4_ratio"].get<double>() == doctest::Approx(lz4_of((26400.0 - 4 * 1824) / (38304 - 8 * 1824), 1.0 / 3)));
  CHECK(hash["senders"]["per_host"] == 4);    // MT_DOP 4 on each daemon
  CHECK(scenario["policies"]["16K"]["compression"] == "lz4_skip_local");  // impalad 5.0.0: IMPALA-12430
  CHECK(hash["receivers"]["per_host"] == 4);  // EXCHANGE_NODE 2 in F01's 12 instances
  const auto& to_coordinator = exchange(scenario, 0, 1);
  CHECK(to_coordinator["id"] == "F01-x4");
  // The 4 senders on the coordinator's daemon sent theirs uncompressed.
  CHECK(to_coordinator["lz4_ratio"].get<double>() ==
        doctest::Approx(lz4_of((26869.0 - 4 * 1824) / (38304 - 8 * 1824), 4.0 / 12)));
  CHECK(to_coordinator["receivers"]["hosts"].size() == 1);  // the coordinator fragment's one instance
}

TEST_CASE("the aggregated layout: the mean times the instances, hosts from the Instances list") {
  const ImportedScenario imported = import_file("compute_stats_aggregated_q2.trimmed.txt");
  const auto scenario = nlohmann::json::parse(imported.json);
  REQUIRE(imported.exchanges == 2);
  CHECK(scenario["name"] == "impala-564ae7b03a77a9cc-521cf35d00000000");
  REQUIRE(scenario["cluster"]["hosts"].size() == 3);
  CHECK(scenario["cluster"]["hosts"][2]["name"] == "surya-Precision-5560-27002");
  const auto& hash = exchange(scenario, 0, 0);
  CHECK(hash["kind"] == "hash");
  CHECK(hash["rows"] == 12 * 152);  // RowsSent: mean=152 over [12 instances]
  CHECK(hash["row"]["fixed_bytes"] == 13);
  CHECK(hash["lz4_ratio"].get<double>() == doctest::Approx(lz4_of((2207.0 - 4 * 152) / (3192 - 8 * 152), 1.0 / 3)));  // the means', less offsets
  CHECK(hash["senders"]["hosts"].size() == 3);
  CHECK(hash["senders"]["per_host"] == 4);
  CHECK(hash["receivers"]["per_host"] == 4);
  CHECK(exchange(scenario, 0, 1)["lz4_ratio"].get<double>() == doctest::Approx(lz4_of((2227.0 - 4 * 152) / (3192 - 8 * 152), 1.0 / 3)));
  CHECK(scenario["notes"]["/workload/queries/0/exchanges/0/rows"].get<std::string>().find("mean x its 12 instances") !=
        std::string::npos);
}

TEST_CASE("a file of several profiles: a scenario query each, or the one --query names") {
  // The extended aggregated layout: each instance's value follows its counter.
  const ImportedScenario all = import_file("compute_stats_aggregated_extended.trimmed.txt");
  const auto scenario = nlohmann::json::parse(all.json);
  // Four profiles: SET (no exchange), the query, its NDV child, COMPUTE STATS (no exchange).
  REQUIRE(scenario["workload"]["queries"].size() == 2);
  CHECK(scenario["workload"]["queries"][0]["name"] == "q2");
  CHECK(scenario["workload"]["queries"][1]["name"] == "q3");
  CHECK(exchange(scenario, 0, 0)["rows"] == 1824);
  CHECK(exchange(scenario, 1, 0)["rows"] == 12);  // one row from each of 12 instances
  // Each profile's plan for its own exchanges: both have an exchange 2, HASH in q2, UNPARTITIONED in q3.
  CHECK(exchange(scenario, 0, 0)["kind"] == "hash");
  CHECK(exchange(scenario, 1, 0)["kind"] == "random");

  ProfileImportOptions third;
  third.query = 3;
  const auto one = nlohmann::json::parse(import_file("compute_stats_aggregated_extended.trimmed.txt", third).json);
  REQUIRE(one["workload"]["queries"].size() == 1);
  CHECK(exchange(one, 0, 0)["rows"] == 12);
  CHECK(one["name"] == "impala-614172e3da200bab-f550d5fc00000000");

  ProfileImportOptions first;
  first.query = 1;
  CHECK_THROWS_WITH_AS(import_file("compute_stats_aggregated_extended.trimmed.txt", first),
                       doctest::Contains("profile 1 of 4 (84496aa93d193345:60c52ddf00000000) has no KrpcDataStreamSender"),
                       InputError);
  ProfileImportOptions beyond;
  beyond.query = 5;
  CHECK_THROWS_WITH_AS(import_file("compute_stats_aggregated_extended.trimmed.txt", beyond),
                       doctest::Contains("--query 5: "), UsageError);
}

TEST_CASE("a sender that sent no row is left out and said so; none with a row is an error") {
  const std::string text =
      "Query (id=a:b):\n"
      "  Execution Profile a:b:\n"
      "    Fragment F00 [2 instances]:\n"
      "    Instances:\n"
      "      [0] Instance a:1 (host=h1:22000)\n"
      "      [1] Instance a:2 (host=h2:22000)\n"
      "      KrpcDataStreamSender (dst_id=3) [2 instances]:(Total: 1ms, non-child: 1ms, % non-child: 100%)\n"
      "         - RowsSent: mean=0 (0) min=0 (0) max=0 (0)\n";
  CHECK_THROWS_WITH_AS(import_impala_profile(ImpalaProfile::parse(text, "z.txt"), {}),
                       doctest::Contains("z.txt:7: F00 KrpcDataStreamSender (dst_id=3) [2 instances]: sent no row; left out"),
                       InputError);
}

// Two instances of one sender, their counters chosen to give round figures.
const char* kCounted =
    "Query (id=c:d):\n"
    "  Summary:\n"
    "    Impala Version: impalad version 5.0.0-SNAPSHOT DEBUG (build abc)\n"
    "  Execution Profile c:d:\n"
    "    Fragment F00 [2 instances]:\n"
    "    Instances:\n"
    "      [0] Instance c:1 (host=h1:22000)\n"
    "      [1] Instance c:2 (host=h2:22000)\n"
    "      KrpcDataStreamSender (dst_id=3) [2 instances]:(Total: 1ms, non-child: 1ms, % non-child: 100%)\n"
    "         - RowsSent: mean=1.00K (1000) min=900 (900) max=1.10K (1100)\n"
    "         - TotalBytesSent: mean=39.06 KB (40000) min=1 B (1) max=2 B (2)\n"
    "         - UncompressedRowBatchSize: mean=42.97 KB (44000) min=1 B (1) max=2 B (2)\n"
    "         - SerializeBatchTime: mean=20.000us min=1.000us max=30.000us\n"
    "         - RpcSuccess: mean=4 (4) min=4 (4) max=4 (4)\n"
    "         - EosSent: mean=1 (1) min=1 (1) max=1 (1)\n"
    "         - PeakMemoryUsage: mean=30.00 KB (30720) min=20.00 KB (20480) max=40.00 KB (40960)\n"
    "         - RpcNetworkTime: (Avg: 150.000us ; Min: 50.000us ; Max: 300.000us ; Sum: 1.200ms ; Number of samples: 8)\n"
    "         - RpcRecvrTime: (Avg: 20.000us ; Min: 10.000us ; Max: 30.000us ; Sum: 160.000us ; Number of samples: 8)\n";

TEST_CASE("a sender's counters: sums over its instances, the largest peak, statistics per call") {
  const ImportedScenario imported = import_impala_profile(ImpalaProfile::parse(kCounted, "c.txt"), {});
  REQUIRE(imported.measured.size() == 1);
  const SenderCounters& c = imported.measured[0].counters;
  CHECK(imported.measured[0].id == "F00-x3");
  CHECK(*c.rows == 2000);
  CHECK(*c.bytes_sent == 80000);
  CHECK(*c.serialize_ns == doctest::Approx(40000));
  CHECK(*c.rpcs == 8);
  CHECK(*c.eos_rpcs == 2);
  CHECK(*c.peak_memory_max == 40960);  // the aggregated counter's max
  CHECK(c.network->mean_ns == doctest::Approx(150000));
  CHECK(c.network->samples == 8);
  CHECK(c.receiver->mean_ns == doctest::Approx(20000));
}

TEST_CASE("costs from the counters: serialization per byte and the RPC layer's latency, the rest from the base") {
  const ImpalaProfile profile = ImpalaProfile::parse(kCounted, "c.txt");
  const ImportedScenario imported = import_impala_profile(profile, {});
  const Scenario scenario = parse_scenario(imported.json, "c.json");
  CostProfile base = reference_cost_profile();
  base.serialize_row_ns = 0;
  const DerivedCosts derived = derive_costs(imported, scenario, base, "base.json", impala_version(profile));
  // Not compressed (the tuple data sent, 80000 B less 4 B of offset a row, is
  // the uncompressed, 88000 B less 8 B of tuple pointer a row): 2000 rows of
  // 36 tuple bytes in 40 us.
  CHECK(derived.costs.serialize_bytes_per_s == doctest::Approx(2000 * 36 / 40e-6));
  // 150 us a call, less the assumed 0.1 ms RTT and a call's 10000 B and framing at 10 Gbit/s.
  const double wire_us = (10000 + static_cast<double>(base.wire_overhead_bytes)) * 8 / 1e4;
  CHECK(derived.costs.rpc_latency_us == doctest::Approx(150 - 100 - wire_us));
  CHECK(derived.sources.at("serialize_bytes_per_s").find("SerializeBatchTime") != std::string::npos);
  CHECK(derived.sources.at("deserialize_bytes_per_s").find("from the base profile, base.json") == 0);
  CHECK(derived.costs.deserialize_bytes_per_s == base.deserialize_bytes_per_s);
  REQUIRE(derived.warnings.size() == 1);
  CHECK(derived.warnings[0].find("DEBUG build") != std::string::npos);
}

TEST_CASE("a row's fixed layout from a hash sender's calls: the buffer over a full batch's rows") {
  // q72's exchange 28: 16,380,000 rows of 246 B in 93,070 batches of 6 channels at 16K.
  const auto layout = fixed_layout_from_calls(16380000, 93070, 6, 16384, 246);
  REQUIRE(layout);
  CHECK(layout->capacity == doctest::Approx(16380000.0 / (93070 - 3)));
  CHECK(layout->fixed == 93);  // 16384 / 176 rows
  // A layout never beyond the row, nor below a byte.
  CHECK(fixed_layout_from_calls(1000, 500, 10, 16384, 40)->fixed == 40);
  CHECK(fixed_layout_from_calls(1e9, 20, 10, 16, 40)->fixed == 1);
  // One batch a channel says only that the capacity was at least its rows:
  // q72's exchange 34, 2123 rows in 9 batches of 9 channels, a layout of at
  // most 16384 / 236 = 69 B, taken as room for twice a channel's rows.
  const auto bound = fixed_layout_from_calls(2123, 9, 9, 16384, 170);
  REQUIRE(bound);
  CHECK(bound->bound);
  CHECK(bound->capacity == doctest::Approx(2 * 2123 / 9.0));
  CHECK(bound->fixed == 35);
  // More than one batch a channel, fewer than two: the partial ones decide it.
  CHECK_FALSE(fixed_layout_from_calls(2123, 17, 9, 16384, 170));
}

}  // namespace
}  // namespace exsim
