// Impala text profiles: counter values in Impala's units, the section tree,
// and scenarios imported from the IMPALA-6041 excerpts (seed 003) and from
// profiles written in the same format, complete, with counters missing and
// with a malformed counter.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "models/base/json_reader.h"
#include "models/impala/impala_profile.h"
#include "models/impala/profile_import.h"
#include "tests/test_util.h"

namespace exsim {
namespace {

std::string profile_path(const std::string& name) { return std::string(EXSIM_SOURCE_DIR) + "/tests/data/profiles/" + name; }

ImpalaProfile load_profile(const std::string& name) {
  const std::string path = profile_path(name);
  return ImpalaProfile::parse(read_text_file(path, "profile"), path);
}

nlohmann::ordered_json import(const std::string& name, ProfileImportOptions options = {}) {
  return nlohmann::ordered_json::parse(import_impala_profile(load_profile(name), options).json);
}

TEST_CASE("profile byte sizes: the exact value in parentheses, else binary units") {
  CHECK(*parse_profile_bytes("3.63 GB (3902930720)") == 3902930720.0);
  CHECK(*parse_profile_bytes("405.23 KB") == doctest::Approx(405.23 * 1024));
  CHECK(*parse_profile_bytes("20.00 MB") == 20.0 * 1024 * 1024);
  CHECK(*parse_profile_bytes("96") == 96);
  CHECK(*parse_profile_bytes("12 B") == 12);
  CHECK_FALSE(parse_profile_bytes("twenty megabytes"));
  CHECK_FALSE(parse_profile_bytes("-5 MB"));
  CHECK_FALSE(parse_profile_bytes("3.63 XB"));
  CHECK_FALSE(parse_profile_bytes(""));
}

TEST_CASE("profile counts: the exact value in parentheses, else K, M, B suffixes") {
  CHECK(*parse_profile_count("402.00K (402000)") == 402000);
  CHECK(*parse_profile_count("2.18K") == doctest::Approx(2180));
  CHECK(*parse_profile_count("1.26M") == doctest::Approx(1.26e6));
  CHECK(*parse_profile_count("0 (0)") == 0);
  CHECK(*parse_profile_count("410") == 410);
  CHECK_FALSE(parse_profile_count("4x"));
  CHECK_FALSE(parse_profile_count("many"));
}

TEST_CASE("profile times: Impala's h, m, s, ms, us, ns compounds") {
  CHECK(*parse_profile_time_ns("19s771ms") == doctest::Approx(19.771e9));
  CHECK(*parse_profile_time_ns("494.783ms") == doctest::Approx(494.783e6));
  CHECK(*parse_profile_time_ns("0.000ns") == 0);
  CHECK(*parse_profile_time_ns("28.946us") == doctest::Approx(28946));
  CHECK(*parse_profile_time_ns("1h2m3s") == doctest::Approx(3723e9));
  CHECK(*parse_profile_time_ns("3m") == doctest::Approx(180e9));
  CHECK(*parse_profile_time_ns("0") == 0);
  CHECK_FALSE(parse_profile_time_ns("5"));
  CHECK_FALSE(parse_profile_time_ns("12 parsecs"));
  CHECK_FALSE(parse_profile_time_ns("1s2"));
  CHECK_FALSE(parse_profile_time_ns(""));
}

TEST_CASE("the IMPALA-6041 excerpt parses into fragment and sender sections") {
  const ImpalaProfile profile = load_profile("impala-6041-krpc.txt");
  const ProfileSection* fragment = nullptr;
  const ProfileSection* sender = nullptr;
  for (const ProfileSection* s : profile.sections()) {
    if (s->title == "Averaged Fragment F01") fragment = s;
    if (s->title == "KrpcDataStreamSender (dst_id=7)") sender = s;
  }
  REQUIRE(fragment != nullptr);
  REQUIRE(sender != nullptr);
  CHECK(sender->parent == fragment);
  CHECK(*fragment->total_ns(profile.file()) == doctest::Approx(20.344e9));
  CHECK(profile.count(*fragment->info("num instances")) == 1);
  CHECK(profile.bytes(*sender->counter("BytesSent")) == 3902930720.0);
  CHECK(profile.time_ns(*sender->counter("SerializeBatchTime")) == doctest::Approx(19.771e9));
  // A child counter stays with its section.
  CHECK(fragment->counter("TotalThreadsUserTime") != nullptr);
  CHECK(sender->counter("TotalThreadsUserTime") == nullptr);
}

TEST_CASE("IMPALA-6041's broadcast imported: rows, row size per channel, LZ4 ratio, producer speed") {
  ProfileImportOptions options;
  options.hosts = 39;
  options.kinds[7] = "broadcast";
  const auto doc = import("impala-6041-krpc.txt", options);
  const auto& x = doc["workload"]["queries"][0]["exchanges"][0];
  CHECK(x["kind"] == "broadcast");
  CHECK(x["rows"] == 402000);
  // 8427946930 B over 39 channels and 402000 rows, less the 8 B tuple pointer
  // Impala counts a deserialized row: 529.56.
  CHECK(x["row"]["fixed_bytes"] == 530);
  // The tuple data's: for each of the 39 copies, the bytes sent hold 4 B of
  // offset a row, the uncompressed bytes 8 B of tuple pointer.
  constexpr double kRows = 402000.0 * 39;
  CHECK(x["lz4_ratio"].get<double>() == doctest::Approx((3902930720.0 - 4 * kRows) / (8427946930.0 - 8 * kRows)));
  // 402000 rows in 20.344 s of fragment less 19.776 s of sender.
  CHECK(x["produce_rows_per_s"].get<double>() == doctest::Approx(402000 / 0.568));
  CHECK(doc["cluster"]["hosts"] == 39);
  CHECK(doc["notes"]["/workload/queries/0/exchanges/0/kind"].get<std::string>().find("--kind") != std::string::npos);
  // The result is a valid scenario, notes included.
  const Scenario scenario = test::scenario_from(doc.dump());
  CHECK(scenario.queries[0].exchanges[0].receivers.instances() == 39);
  CHECK_FALSE(scenario.notes.empty());
}

TEST_CASE("a full profile: hosts, instances, plan partitioning and receivers come from the profile") {
  const ImportedScenario imported = import_impala_profile(load_profile("three-hosts-hash.txt"), {});
  const auto doc = nlohmann::ordered_json::parse(imported.json);
  CHECK(imported.exchanges == 2);
  CHECK(doc["name"] == "impala-5d4b2a1c9e8f7a6b-3c2d1e0f00000000");
  REQUIRE(doc["cluster"]["hosts"].size() == 3);
  CHECK(doc["cluster"]["hosts"][1]["name"] == "impala-2.example.com");
  const auto& hash = doc["workload"]["queries"][0]["exchanges"][0];
  CHECK(hash["kind"] == "hash");
  CHECK(hash["rows"] == 3000000);                       // three instances of 1M
  CHECK(hash["row"]["fixed_bytes"] == 34);              // 3 x 40 MiB / 3M rows - 8
  // 3 x 20 MiB sent of 3 x 40 MiB, each less the rows' 4 B offsets: the tuple
  // data's ratio; and with no version given, Impala taken as 4.3 or later,
  // whose senders send the third of their batches to their own daemon
  // uncompressed (IMPALA-12430): the rest carry (r - 1/3) / (2/3).
  const double mixed = (3 * 20.0 * 1048576 - 12e6) / (3 * 40.0 * 1048576 - 24e6);
  CHECK(hash["lz4_ratio"].get<double>() == doctest::Approx((mixed - 1.0 / 3) / (2.0 / 3)));
  CHECK(hash["receivers"]["hosts"].size() == 3);
  CHECK(hash["produce_rows_per_s"].get<double>() == doctest::Approx(1e6 / 2.0));  // 3s500ms - 1s500ms
  const auto& broadcast = doc["workload"]["queries"][0]["exchanges"][1];
  CHECK(broadcast["kind"] == "broadcast");
  CHECK(broadcast["senders"]["hosts"] == nlohmann::ordered_json::array({"impala-2.example.com"}));
  CHECK(broadcast["row"]["fixed_bytes"] == 17);  // 11324620 B / 3 channels / 150000 rows - 8
  // Every value of every exchange has a note, and only what the profile lacks is assumed.
  for (const auto& [key, value] : hash.items()) {
    const std::string pointer = "/workload/queries/0/exchanges/0/" + key + (key == "row" ? "/fixed_bytes" : "");
    const bool noted = key == "id" || doc["notes"].contains(pointer);
    CHECK_MESSAGE(noted, key);
  }
  for (const auto& [pointer, note] : imported.assumptions) {
    CHECK(pointer.find("/kind") == std::string::npos);
    CHECK(pointer.find("/rows") == std::string::npos);
    CHECK(pointer.find("/lz4_ratio") == std::string::npos);
  }
  test::scenario_from(imported.json);
}

TEST_CASE("missing counters are assumed and reported, never silently zeroed") {
  const ImportedScenario imported = import_impala_profile(load_profile("missing-counters.txt"), {});
  const auto doc = nlohmann::ordered_json::parse(imported.json);
  const auto& first = doc["workload"]["queries"][0]["exchanges"][0];
  const auto& second = doc["workload"]["queries"][0]["exchanges"][1];
  CHECK(first["lz4_ratio"].get<double>() == 1.0);
  CHECK(first["row"]["fixed_bytes"] == 17);  // 3 x 20 MiB sent / 3M rows - 4 B
  CHECK(second["row"]["fixed_bytes"] == 64);
  auto assumed = [&](const std::string& pointer) {
    for (const auto& a : imported.assumptions) {
      if (a.first == pointer) return true;
    }
    return false;
  };
  CHECK(assumed("/workload/queries/0/exchanges/0/lz4_ratio"));
  CHECK(assumed("/workload/queries/0/exchanges/0/row/fixed_bytes"));
  CHECK(assumed("/workload/queries/0/exchanges/1/row/fixed_bytes"));
  CHECK(doc["notes"]["/workload/queries/0/exchanges/1/row/fixed_bytes"].get<std::string>().find("assumed") == 0);
}

TEST_CASE("a malformed counter is an error naming the file, the line and the counter") {
  std::string message;
  try {
    import_impala_profile(load_profile("malformed-counter.txt"), {});
  } catch (const InputError& e) {
    message = e.what();
  }
  CHECK(message.find("malformed-counter.txt:43: counter TotalBytesSent") != std::string::npos);
  CHECK(message.find("'twenty megabytes'") != std::string::npos);
}

TEST_CASE("text that is not a profile, or has no sender, is an error") {
  CHECK_THROWS_WITH_AS(ImpalaProfile::parse("hello\nworld\n", "x.txt"), doctest::Contains("x.txt: expected an Impala query profile"),
                       InputError);
  const ImpalaProfile no_sender = ImpalaProfile::parse("Fragment F00:\n  Instance a:b (host=h1:22000):(Total: 1s, non-child: 0)\n", "y.txt");
  CHECK_THROWS_WITH_AS(import_impala_profile(no_sender, {}), doctest::Contains("y.txt: no KrpcDataStreamSender"),
                       InputError);
}

}  // namespace
}  // namespace exsim
