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
#include "models/impala/profile_import.h"

namespace exsim {
namespace {

ImportedScenario import_file(const std::string& name, const ProfileImportOptions& options = {}) {
  const std::string path = std::string(EXSIM_SOURCE_DIR) + "/tests/data/profiles/impala/" + name;
  return import_impala_profile(ImpalaProfile::parse(read_text_file(path, "profile"), path), options);
}

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
  CHECK(hash["row"]["fixed_bytes"] == 17);  // 38304 B uncompressed / 1824 rows - 4 B of offset
  CHECK(hash["lz4_ratio"].get<double>() == doctest::Approx(26400.0 / 38304));
  CHECK(hash["senders"]["per_host"] == 4);    // MT_DOP 4 on each daemon
  CHECK(hash["receivers"]["per_host"] == 4);  // EXCHANGE_NODE 2 in F01's 12 instances
  const auto& to_coordinator = exchange(scenario, 0, 1);
  CHECK(to_coordinator["id"] == "F01-x4");
  CHECK(to_coordinator["lz4_ratio"].get<double>() == doctest::Approx(26869.0 / 38304));
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
  CHECK(hash["row"]["fixed_bytes"] == 17);
  CHECK(hash["lz4_ratio"].get<double>() == doctest::Approx(2207.0 / 3192));  // the means' quotient
  CHECK(hash["senders"]["hosts"].size() == 3);
  CHECK(hash["senders"]["per_host"] == 4);
  CHECK(hash["receivers"]["per_host"] == 4);
  CHECK(exchange(scenario, 0, 1)["lz4_ratio"].get<double>() == doctest::Approx(2227.0 / 3192));
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

}  // namespace
}  // namespace exsim
