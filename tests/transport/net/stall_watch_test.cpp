// A stall is found where a thread did not run, not where it only waited.
#include <doctest/doctest.h>

#include <chrono>
#include <thread>

#include "transport/net/reactor.h"
#include "transport/net/stall_watch.h"
#include "transport/net/steady_clock.h"

namespace exsim::transport {
namespace {

using namespace std::chrono_literals;

TEST_CASE("a reactor kept from running for 600 ms is a stall of about that length; a quiet one has none") {
  Reactor reactor;
  const auto watch = StallWatch::start(reactor.context());
  const std::int64_t began = steady_now_ns();
  std::this_thread::sleep_for(400ms);
  const std::int64_t quiet_end = steady_now_ns();
  // Nothing kept it from its ticks: no stall (a tick late by tens of ms is not one).
  CHECK_FALSE(watch->longest(began, quiet_end));
  reactor.post([] { std::this_thread::sleep_for(600ms); });  // as a stopped process's thread
  std::this_thread::sleep_for(900ms);
  const auto stall = watch->longest(quiet_end, steady_now_ns());
  REQUIRE(stall);
  CHECK(stall->what == "its process did not run");
  // Late by the 600 ms, less at most a tick it was already into.
  CHECK(stall->length_ns >= std::chrono::nanoseconds(480ms).count());
  CHECK(stall->length_ns <= std::chrono::nanoseconds(800ms).count());
  // Asked about a span before it, none: a stall is dated from the tick it
  // delayed, which may have been due up to a tick before the thread stopped.
  CHECK_FALSE(watch->longest(began, quiet_end - std::chrono::nanoseconds(StallWatch::kTick).count()));
  reactor.post([watch] { watch->stop(); });
}

}  // namespace
}  // namespace exsim::transport
