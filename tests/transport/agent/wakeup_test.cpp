// The waits that replace polling: a Countdown wakes its waiter at the last
// thread's end, a Doorbell at any ring after the count the waiter saw, and
// neither loses a wake-up that comes before the wait begins.
#include <doctest/doctest.h>

#include <chrono>
#include <thread>

#include "transport/agent/control_channel.h"
#include "transport/exchange/countdown.h"

namespace exsim::transport {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

TEST_CASE("countdown: the waiter wakes when the last thread ends, not before") {
  Countdown running;
  running.add(2);
  CHECK_FALSE(running.wait_until(Clock::now() + 20ms));  // nobody ended: the deadline
  std::thread first([&] { running.count_down(); });
  first.join();
  CHECK_FALSE(running.wait_until(Clock::now() + 20ms));  // one of two
  const auto before = Clock::now();
  std::thread last([&] {
    std::this_thread::sleep_for(30ms);
    running.count_down();
  });
  CHECK(running.wait_until(Clock::now() + 10s));
  CHECK(Clock::now() - before < 5s);  // woken by the end, far before the deadline
  last.join();
  CHECK(running.wait_until(Clock::now()));  // stays done
}

TEST_CASE("doorbell: a ring after the count seen wakes the waiter, even one rung before the wait") {
  Doorbell bell;
  const auto seen = bell.rings();
  CHECK_FALSE(bell.wait_past(seen, Clock::now() + 20ms));
  bell.ring();  // between looking at the channels and waiting: not lost
  CHECK(bell.wait_past(seen, Clock::now() + 10s));
  const auto now_seen = bell.rings();
  CHECK(now_seen == seen + 1);
  std::thread ringer([&] {
    std::this_thread::sleep_for(30ms);
    bell.ring();
  });
  CHECK(bell.wait_past(now_seen, Clock::now() + 10s));
  ringer.join();
}

}  // namespace
}  // namespace exsim::transport
