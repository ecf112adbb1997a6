// Impala's profile logs (impala_profile_log_*: a line a query, its profile
// tree in Thrift's compact protocol, zlib-compressed, base64): Impala's own
// COMPUTE STATS log, both as written without AGGREGATED_PROFILE and with it,
// imports as the text that impala-profile-tool printed from it does; a line
// that does not decode is named.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>

#include <nlohmann/json.hpp>

#include "models/base/error.h"
#include "models/base/json_reader.h"
#include "models/impala/impala_profile.h"
#include "models/impala/profile_import.h"
#include "models/impala/profile_log.h"

namespace exsim {
namespace {

nlohmann::json import_file(const std::string& name, const ProfileImportOptions& options = {}) {
  const std::string path = std::string(EXSIM_SOURCE_DIR) + "/tests/data/profiles/impala/" + name;
  const std::string text = read_text_file(path, "profile");
  return nlohmann::json::parse(import_impala_profile(ImpalaProfile::parse(profile_as_text(text, path), path), options).json);
}

// An exchange as the comparison sees it: its hosts in any order.
nlohmann::json comparable(nlohmann::json x) {
  for (const char* side : {"senders", "receivers"}) {
    auto& hosts = x[side]["hosts"];
    std::sort(hosts.begin(), hosts.end());
  }
  x.erase("produce_rows_per_s");  // the log keeps the instances' times the printed legacy text left out
  return x;
}

TEST_CASE("a profile log is told from text and JSON") {
  CHECK(looks_like_profile_log("1785722095212 5644dcaf9cc34cea:1147591800000000 eJyVVs9v\n"));
  CHECK_FALSE(looks_like_profile_log("Query (id=5644dcaf9cc34cea:1147591800000000):\n"));
  CHECK_FALSE(looks_like_profile_log("{\"contents\": {}}"));
}

TEST_CASE("Impala's COMPUTE STATS log, aggregated: the same scenario as the text printed from it") {
  const auto log = import_file("impala_profile_log_tpcds_compute_stats_v2");
  const auto text = import_file("compute_stats_aggregated_extended.trimmed.txt");
  REQUIRE(log["workload"]["queries"].size() == 2);
  REQUIRE(log["workload"]["queries"] == text["workload"]["queries"]);
  CHECK(log["cluster"] == text["cluster"]);
  CHECK(log["policies"] == text["policies"]);
}

TEST_CASE("Impala's COMPUTE STATS log, per instance: the GROUP BY query's exchanges as the legacy text gives them") {
  ProfileImportOptions second;
  second.query = 2;
  const auto log = import_file("impala_profile_log_tpcds_compute_stats", second);
  const auto text = import_file("compute_stats_legacy_q2.trimmed.txt");
  const auto& from_log = log["workload"]["queries"][0]["exchanges"];
  const auto& from_text = text["workload"]["queries"][0]["exchanges"];
  REQUIRE(from_log.size() == 2);
  REQUIRE(from_text.size() == 2);
  for (std::size_t i = 0; i < 2; ++i) {
    CAPTURE(i);
    CHECK(comparable(from_log[i]) == comparable(from_text[i]));
  }
  // The rows: the 12 instances' RowsSent.
  CHECK(from_log[0]["rows"] == 1824);
}

TEST_CASE("a log line that does not decode is named, with every other bad line") {
  const std::string bad =
      "1 a:b !!!notbase64\n"
      "2 c:d eJyVVs9v\n";  // base64, but cut short of a zlib stream
  std::string message;
  try {
    profile_log_to_json(bad, "bad.log");
  } catch (const InputError& e) {
    message = e.what();
  }
  CHECK(message.find("bad.log:1: expected base64, found the character '!'") != std::string::npos);
  CHECK(message.find("bad.log:2: expected zlib-compressed data") != std::string::npos);
}

}  // namespace
}  // namespace exsim
