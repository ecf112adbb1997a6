// Impala's memory tracker's view of a sender (models/rules/tracked_strings.h),
// against figures derived by hand from libstdc++'s growth rule and Impala's
// swaps, and against those Impala's published profiles print.
#include <doctest/doctest.h>

#include "models/rules/tracked_strings.h"

namespace exsim {
namespace {

TEST_CASE("a whole batch's string takes its exact size and a terminator; one of 16-29 B takes 30") {
  TrackedStrings one(1, 1, 1.0);
  one.whole_batch(0, {100, 2900}, false);
  CHECK(one.peak() == 2901);  // TPC-DS q1, exchange 26: PeakMemoryUsage 2,901

  // Batches of one 29 B row: the string outgrows its 15 B in place, to twice
  // that; the serialization batch and the channel's swap, so two strings.
  TrackedStrings rows(1, 1, 1.0);
  for (int i = 0; i < 7; ++i) rows.whole_batch(0, {1, 29}, false);
  CHECK(rows.peak() == 62);  // exchanges 23 and 25: 62

  // Batches of at most 15 B allocate nothing.
  TrackedStrings tiny(1, 1, 1.0);
  tiny.whole_batch(0, {1, 15}, false);
  CHECK(tiny.peak() == 0);
}

TEST_CASE("whole batches alternate between two strings, and a third with a second call in flight") {
  TrackedStrings sender(1, 1, 1.0);
  for (int i = 0; i < 62; ++i) sender.whole_batch(0, {1024, 25600}, false);
  CHECK(sender.peak() == 2 * 25601);  // exchanges 16, 18 and 21: 51,202

  TrackedStrings two_in_flight(1, 2, 1.0);
  for (int i = 0; i < 5; ++i) two_in_flight.whole_batch(0, {100, 2900}, false);
  CHECK(two_in_flight.peak() == 3 * 2901);
}

TEST_CASE("LZ4's scratch: resized to the bound, and kept out of the batch when LZ4 does not shrink it") {
  TrackedStrings kept(1, 1, 1.0);
  kept.whole_batch(0, {100, 2900}, true);
  CHECK(kept.peak() == 2901 + (2900 + 2900 / 255 + 16) + 1);
}

TEST_CASE("a compressed broadcast: the scratch's bound doubles the strings it passes through") {
  // 1023 rows of 17 B, 17,391 B, to 0.237: the scratch takes LZ4's bound,
  // 17,475 B, and is swapped into the batch; the next batch's string, the old
  // one at 17,391, is then asked for the bound and doubles to 34,782; on the
  // third batch the string that grows holds alongside the one it replaces
  // (17,392), the in-flight batch's (34,783) and the serialization batch's
  // (17,476): 104,434 (Impala's q72 broadcasts of 17 B rows: 104,536).
  TrackedStrings sender(3, 1, 0.237);
  sender.broadcast_batch({1023, 17391}, true);
  CHECK(sender.peak() == 17392 + 17476);
  sender.broadcast_batch({1023, 17391}, true);
  CHECK(sender.peak() == 17392 + 17476 + 17392 + 34783);
  for (int i = 0; i < 20; ++i) sender.broadcast_batch({1023, 17391}, true);
  CHECK(sender.peak() == 17476 + 34783 + 17392 + 34783);
}

TEST_CASE("a hash collector's string grows from 30 B by doubling as rows are appended, and keeps its room") {
  // 1024 rows of 25 B: 30, 60, ... 30,720, each growth holding the old string
  // with the new; the second batch grows a second string beside the first.
  TrackedStrings sender(2, 1, 1.0);
  sender.hash_batch(0, {1024, 25600}, false);
  CHECK(sender.peak() == 15361 + 30721);
  sender.hash_batch(0, {1024, 25600}, false);
  CHECK(sender.peak() == 30721 + 15361 + 30721);
  // The first string is the collector's again, with room for the batch.
  for (int i = 0; i < 10; ++i) sender.hash_batch(0, {1024, 25600}, false);
  CHECK(sender.peak() == 30721 + 15361 + 30721);
  // Another channel's strings add their own.
  sender.hash_batch(1, {512, 12800}, false);
  CHECK(sender.peak() == 2 * 30721 + 7681 + 15361);
}

TEST_CASE("rows whose mean size is not a whole number of bytes fill a collector without a spurious doubling") {
  // 3 rows of 10 B in all, then 1000 rows of 3,333 B: the strings hold them
  // (30 B; 30 x 2^7 = 3,840), where a byte too many would have doubled them.
  TrackedStrings sender(1, 1, 1.0);
  sender.hash_batch(0, {3, 10}, false);
  CHECK(sender.peak() == 0);  // 10 B fit in place
  sender.hash_batch(0, {1000, 3333}, false);
  CHECK(sender.peak() == 1921 + 3841);
  sender.hash_batch(0, {1000, 3840}, false);
  CHECK(sender.peak() == 1921 + 3841 + 3841);
}

}  // namespace
}  // namespace exsim
