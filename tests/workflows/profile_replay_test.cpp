// The model replayed against Impala's own profiles: what the model must
// reproduce whatever its costs (the bytes before LZ4, every sender's end of
// stream), and the replay's rows, table and JSON carrying what it compared.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>

#include <nlohmann/json.hpp>

#include "workflows/profile_replay.h"
#include "models/scenario/scenario_loader.h"

namespace exsim {
namespace {

const std::string kProfiles = std::string(EXSIM_SOURCE_DIR) + "/tests/data/profiles/impala/";

const workflows::ReplayRow* row(const workflows::ProfileReplay& replay, const std::string& exchange,
                                const std::string& figure) {
  for (const auto& r : replay.rows) {
    if (r.exchange == exchange && r.figure == figure) return &r;
  }
  return nullptr;
}

TEST_CASE("Impala's q72 replayed: every exchange's bytes before LZ4 and its ends of stream as the profile counted them") {
  const auto replay = workflows::replay_profile(kProfiles + "tpcds_72_local_run_profile.trimmed.json", {},
                                                reference_cost_profile(), "the reference profile");
  REQUIRE(replay.imported.measured.size() == 13);
  int compared = 0;
  for (const auto& m : replay.imported.measured) {
    const std::string name = m.query + " " + m.id;
    CAPTURE(name);
    const auto* uncompressed = row(replay, name, "bytes before LZ4");
    REQUIRE(uncompressed);
    // The rows' mean size is rounded to a byte, so within 1%.
    CHECK(std::abs(uncompressed->error()) < 0.01);
    // The bytes sent: LZ4's ratio with the batches to a sender's own daemon
    // uncompressed (IMPALA-12430), as Impala 5.0 sent them.
    const auto* sent = row(replay, name, "bytes sent");
    REQUIRE(sent);
    CHECK(std::abs(sent->error()) < 0.02);
    const auto* eos = row(replay, name, "end-of-stream calls");
    REQUIRE(eos);
    CHECK(eos->model == eos->profile);
    // Every call: broadcasts and the merge as the model batches them; the hash
    // exchanges with the row's fixed layout derived from their calls (for
    // exchange 34, whose 9 channels sent one batch each, bounded by them).
    const auto* calls = row(replay, name, "calls");
    REQUIRE(calls);
    CHECK(std::abs(calls->error()) < 0.02);
    CHECK(row(replay, name, "network us a call"));
    CHECK(row(replay, name, "sender ms"));
    // Impala's tracker's count of the sender's strings (tracked_strings.h):
    // within 16% on every exchange, the hash ones (exchange 27: 152,895) and
    // the broadcasts of 17 B rows (104,536) within 0.2%.
    const auto* peak = row(replay, name, "largest sender's peak bytes");
    REQUIRE(peak);
    CHECK(std::abs(peak->error()) < 0.25);
    ++compared;
  }
  CHECK(compared == 13);
  // A DEBUG build, said so.
  CHECK(replay.costs.warnings.back().find("DEBUG build") != std::string::npos);
  const auto json = nlohmann::json::parse(workflows::replay_json(replay));
  CHECK(json["rows"].size() == replay.rows.size());
  CHECK(workflows::replay_table(replay, true).find("| exchange |") != std::string::npos);
}

TEST_CASE("Impala's q1 at MT_DOP 0 and 12 on one daemon replayed: every call and byte, all of them uncompressed") {
  for (const char* file : {"tpcds_1_local_run_mt_dop_0_profile.trimmed.json", "tpcds_1_local_run_mt_dop_12_profile.trimmed.json"}) {
    CAPTURE(file);
    const auto replay = workflows::replay_profile(kProfiles + file, {}, reference_cost_profile(), "the reference profile");
    REQUIRE(replay.imported.measured.size() == 9);
    for (const auto& r : replay.rows) {
      CAPTURE(r.exchange);
      CAPTURE(r.figure);
      // Calls (of whole batches whose size the calls give) and bytes: within 2%.
      if (r.figure == "calls" || r.figure.rfind("bytes", 0) == 0) CHECK(std::abs(r.error()) < 0.02);
    }
    // Sent uncompressed, so serialization and deserialization alone are what the profile gives.
    CHECK(replay.costs.derived.front() == "serialize_bytes_per_s");
    CHECK(std::count(replay.costs.derived.begin(), replay.costs.derived.end(), "deserialize_bytes_per_s") == 1);
    const auto* deserialize = row(replay, "all exchanges", "deserialization ms");
    REQUIRE(deserialize);
    CHECK(std::abs(deserialize->error()) < 0.02);  // the model spends what was derived
    // The sender's strings: a one-batch exchange's peak is its tuple data and a
    // terminator, exactly (exchange 26: 2,900 B of 100 rows); those of batches
    // of 820 rows on average fall short where Impala's largest had 1024 (51,202
    // B, two strings of 25,600), which a profile does not say.
    CHECK(row(replay, "q1 F00-x26", "largest sender's peak bytes")->model == 2901);
    for (const auto& r : replay.rows) {
      if (r.figure == "largest sender's peak bytes") CHECK(std::abs(r.error()) < 0.25);
    }
    // No call was held back.
    for (const auto& r : replay.rows) {
      if (r.figure == "calls held back") CHECK(r.profile == 0);
    }
  }
}

TEST_CASE("a profile of several queries replays each, or the one asked for") {
  ProfileImportOptions second;
  second.query = 2;
  const auto replay = workflows::replay_profile(kProfiles + "compute_stats_aggregated_extended.trimmed.txt", second,
                                                reference_cost_profile(), "the reference profile");
  REQUIRE(replay.imported.measured.size() == 2);
  CHECK(row(replay, "q2 F00-x2", "bytes before LZ4")->profile == 12 * 3192);
  // Every sender's SerializeBatchTime, the mean of each aggregated section times its 12 instances.
  const auto* serialize = row(replay, "all exchanges", "serialization ms");
  REQUIRE(serialize);
  CHECK(serialize->profile == doctest::Approx(12 * (45.908 + 19.915) * 1e-3));
  // All compressed: LZ4's rate derived from them, serialization left at the base's.
  CHECK(replay.costs.derived.front() == "lz4_compress_bytes_per_s");
  CHECK(replay.costs.sources.at("serialize_bytes_per_s").find("from the base profile") == 0);
}

}  // namespace
}  // namespace exsim
