// Impala's JSON profiles: rendered in the text form the importer reads, its
// counters in their units, the statistics without samples, a malformed one
// named by its JSON path; and a real one, Impala's own TPC-DS q72 at MT_DOP 12
// on three daemons of one machine (tests/data/profiles/impala/README.md),
// imported with each exchange's rows and bytes the sums of its instances'
// counters.
#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "models/base/error.h"
#include "models/base/json_reader.h"
#include "models/impala/impala_profile.h"
#include "models/impala/profile_import.h"
#include "models/impala/profile_json.h"
#include "models/impala/profile_titles.h"

namespace exsim {
namespace {

const char* kTiny = R"json({"contents": {"profile_name": "Query (id=a:b)", "num_children": 1,
  "child_profiles": [{"profile_name": "KrpcDataStreamSender (dst_id=4)", "num_children": 0,
    "info_strings": [{"key": "ExecOption", "value": "first\nsecond"}],
    "counters": [{"counter_name": "TotalTime", "value": 1500, "unit": "TIME_NS"},
                 {"counter_name": "TotalBytesSent", "value": 3902930720, "unit": "BYTES"},
                 {"counter_name": "RowsSent", "value": 402000, "unit": "UNIT"}],
    "summary_stats_counters": [{"counter_name": "RpcNetworkTime", "value": 7, "unit": "TIME_NS", "num_of_samples": 0}]}]}})json";

TEST_CASE("a JSON profile renders as the text form: sections, counters in their units, info lines") {
  CHECK(looks_like_json("  {\"contents\": {}}"));
  CHECK(looks_like_json("\n[{}]"));
  CHECK_FALSE(looks_like_json("Query (id=a:b):"));
  const std::string text = render_json_profile(kTiny, "tiny.json");
  CHECK(text.find("Query (id=a:b):\n") == 0);
  CHECK(text.find("  KrpcDataStreamSender (dst_id=4):(Total: 1500ns)\n") != std::string::npos);
  CHECK(text.find("    ExecOption: first\n    second\n") != std::string::npos);
  CHECK(text.find("     - RpcNetworkTime: (Avg: 7ns ; Min: 7ns ; Max: 7ns ; Number of samples: 0)") != std::string::npos);
  const ImpalaProfile profile = ImpalaProfile::parse(text, "tiny.json");
  const ProfileSection& sender = *profile.root().children.at(0)->children.at(0);
  CHECK(sender.title == "KrpcDataStreamSender (dst_id=4)");
  CHECK(profile.bytes(*sender.counter("TotalBytesSent")) == 3902930720.0);
  CHECK(profile.count(*sender.counter("RowsSent")) == 402000);
  CHECK(profile.time_ns(*sender.counter("TotalTime")) == 1500);
  CHECK(*sender.total_ns("tiny.json") == 1500);
}

TEST_CASE("a JSON profile that is not one is named by the JSON path of what is wrong") {
  const auto message = [](const std::string& text) {
    try {
      render_json_profile(text, "bad.json");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK(message(R"({"contents": {"profile_name": "Q", "counters": [{"counter_name": "RowsSent", "value": "many", "unit": "UNIT"}]}})")
            .find("bad.json:/contents/counters/0/value: expected a number") != std::string::npos);
  CHECK(message(R"([{"contents": {"profile_name": "Q"}}, {"no": 1}])")
            .find("bad.json:/1: missing required key 'profile_name'") != std::string::npos);
  CHECK(message("{\"contents\": ").find("bad.json") != std::string::npos);  // not JSON at all
}

TEST_CASE("daemons are named by their host, with the port only where several share it") {
  CHECK(daemon_names({"h1:22000", "h2:22000"}) == std::vector<std::string>{"h1", "h2"});
  CHECK(daemon_names({"m:27000", "m:27001", "h2:22000"}) == std::vector<std::string>{"m-27000", "m-27001", "h2"});
  CHECK(daemon_names({"h1"}) == std::vector<std::string>{"h1"});
}

// The sums of a JSON profile's instance counters of each sender, by (fragment, dst_id).
struct Sums {
  double rows = 0, bytes = 0, uncompressed = 0;
};
void sum_instances(const nlohmann::json& node, const std::string& fragment, bool in_instance,
                   std::map<std::string, Sums>& sums) {
  const std::string name = node.value("profile_name", "");
  std::string f = fragment;
  if (name.rfind("Fragment F", 0) == 0) f = name.substr(9, 3);
  if (name.rfind("Averaged Fragment", 0) == 0 || name.rfind("Coordinator Fragment", 0) == 0) f = name.substr(name.find('F', 1), 3);
  const bool instance = in_instance || name.rfind("Instance ", 0) == 0;
  if (instance && name.rfind("KrpcDataStreamSender (dst_id=", 0) == 0 && name.rfind("Averaged", 0) != 0) {
    const std::string key = f + "-x" + name.substr(29, name.size() - 30);
    for (const auto& c : node["counters"]) {
      if (c["counter_name"] == "RowsSent") sums[key].rows += c["value"].get<double>();
      if (c["counter_name"] == "TotalBytesSent") sums[key].bytes += c["value"].get<double>();
      if (c["counter_name"] == "UncompressedRowBatchSize") sums[key].uncompressed += c["value"].get<double>();
    }
  }
  if (node.contains("child_profiles")) {
    for (const auto& child : node["child_profiles"]) sum_instances(child, f, instance, sums);
  }
}

TEST_CASE("Impala's own q72 profile in JSON: every exchange, its rows and bytes the sums of its instances") {
  const std::string path = std::string(EXSIM_SOURCE_DIR) + "/tests/data/profiles/impala/tpcds_72_local_run_profile.trimmed.json";
  const std::string text = read_text_file(path, "profile");
  const ImportedScenario imported =
      import_impala_profile(ImpalaProfile::parse(render_json_profile(text, path), path), ProfileImportOptions{});
  const auto scenario = nlohmann::json::parse(imported.json);
  std::map<std::string, Sums> sums;
  sum_instances(nlohmann::json::parse(text)["contents"], "", false, sums);
  REQUIRE(sums.size() == 13);
  CHECK(imported.exchanges == 13);
  // Three daemons on one machine, told apart by their ports.
  REQUIRE(scenario["cluster"]["hosts"].size() == 3);
  CHECK(scenario["cluster"]["hosts"][1]["name"] == "cldr-21738-27001");
  for (const auto& x : scenario["workload"]["queries"][0]["exchanges"]) {
    const std::string id = x["id"];
    CAPTURE(id);
    REQUIRE(sums.count(id) == 1);
    CHECK(x["rows"].get<double>() == sums[id].rows);
    // The bytes: LZ4's ratio is that of the tuple data, the sums of the bytes
    // sent less 4 B of offset a row and of the uncompressed bytes less 8 B of
    // tuple pointer a row (each channel's copy for a broadcast).
    const double receivers = static_cast<double>(x["receivers"]["hosts"].size()) * x["receivers"]["per_host"].get<double>();
    const double copies = x["kind"] == "broadcast" ? receivers : 1;
    const double rows = sums[id].rows * copies;
    const double mixed = (sums[id].bytes - 4 * rows) / (sums[id].uncompressed - 8 * rows);
    // Impala 5.0 sends a channel's batches to its own daemon uncompressed
    // (IMPALA-12430): with one receiver a daemon, a hash or merge sender's
    // share of them is 1 / receivers if its daemon has one; a broadcast of
    // several channels compresses them all.
    double local = 0;
    if (x["kind"] != "broadcast") {
      const auto& senders = x["senders"]["hosts"];
      const auto& hosts = x["receivers"]["hosts"];
      for (const auto& s : senders) local += std::count(hosts.begin(), hosts.end(), s) > 0 ? 1.0 / receivers : 0;
      local /= static_cast<double>(senders.size());
    }
    CHECK(x["lz4_ratio"].get<double>() == doctest::Approx((mixed - local) / (1 - local)));
  }
  CHECK(scenario["workload"]["queries"][0]["exchanges"][1]["rows"] == 16380000);  // F01's hash exchange to 28
  CHECK(scenario["workload"]["queries"][0]["exchanges"][12]["kind"] == "merge");   // 36:MERGING-EXCHANGE
}

}  // namespace
}  // namespace exsim
