// The validated region: a prediction inside when one suite row reaches its
// channels and batch together and the suite spans its in-flight count, MT_DOP
// and RTT; outside, each gap named with the nearest row's error.
#include <doctest/doctest.h>

#include "models/scenario/scenario_loader.h"
#include "validate/validated_region.h"

namespace exsim::validate {
namespace {

std::vector<RegionRow> suite() {
  return {{"wide / 16K", {12, 27000, 1, 4, 0.2}, -0.045},
          {"tall / 128K", {3, 235000, 2, 1, 0.6}, 0.205},
          {"broadcast", {0, 0, 1, 2, 0.1}, -0.11}};
}

TEST_CASE("a point one row reaches, within the suite's in flight, MT_DOP and RTT, is inside") {
  const RegionCheck check = check_region({10, 20000, 1, 4, 0.2}, suite());
  CHECK(check.inside);
  CHECK(check.warning().empty());
  CHECK(check_region({3, 200000, 2, 1, 0.5}, suite()).inside);
  CHECK(check_region({0, 0, 1, 0, 0.05}, suite()).inside);  // no hash exchange, a short RTT
}

TEST_CASE("many channels with large batches is outside though each alone was checked") {
  // 12 channels were checked at 27 KB, 235 KB batches at 3 channels: 12 at 235 KB by neither.
  const RegionCheck check = check_region({12, 235000, 1, 4, 0.2}, suite());
  CHECK_FALSE(check.inside);
  REQUIRE(check.gaps.size() == 1);
  CHECK(check.gaps[0].find("12 channels a sender with 229 KiB batches") == 0);
  CHECK(check.nearest == "wide / 16K");
  CHECK(check.warning().find("the nearest suite row, wide / 16K, was -4.5% off") != std::string::npos);
}

TEST_CASE("each dimension beyond the suite is a gap of its own") {
  const RegionCheck check = check_region({80, 600000, 4, 8, 0.7}, suite());
  CHECK_FALSE(check.inside);
  CHECK(check.gaps.size() == 4);
  CHECK(check.warning().find("4 RPCs in flight (the suite's most: 2)") != std::string::npos);
  CHECK(check.warning().find("MT_DOP 8 (the suite's most: 4)") != std::string::npos);
  CHECK(check.warning().find("RTTs up to 0.70 ms (the suite's longest: 0.60 ms)") != std::string::npos);
}

TEST_CASE("a scenario's point: the hash exchange with the most channels x bytes, the largest RTT") {
  const Scenario s = load_scenario(std::string(EXSIM_SOURCE_DIR) + "/scenarios/default.json");
  const RegionPoint p = region_point(s, s.policies[1]);  // 64K
  CHECK(p.channels == 5);
  CHECK(p.batch_bytes > 64 * 1024);  // fixed_len overshoots
  CHECK(p.rtt_ms == doctest::Approx(0.6));
  CHECK(p.mt_dop == 0);
  // The region written and read back.
  const std::vector<RegionRow> back = parse_region(region_json(suite()), "test");
  REQUIRE(back.size() == 3);
  CHECK(back[1].label == "tall / 128K");
  CHECK(back[1].point.batch_bytes == 235000);
  CHECK(back[1].wall_error == doctest::Approx(0.205));
}

}  // namespace
}  // namespace exsim::validate
