// The sender's in-flight bound across threads: never exceeded, blocking with a
// deadline, and woken by cancel.
#include <doctest/doctest.h>

#include <atomic>
#include <memory>
#include <thread>

#include "transport/exchange/channel_window.h"

namespace exsim::transport {
namespace {

using namespace std::chrono_literals;

TEST_CASE("a sender never has more calls in flight on a channel than the window allows") {
  for (int in_flight : {1, 2}) {
    CAPTURE(in_flight);
    ChannelWindow window(3, in_flight);
    std::atomic<int> outstanding[3] = {0, 0, 0};
    std::atomic<bool> over{false};
    std::atomic<int> sent{0};
    // The "reactor": completes calls a little later, from another thread.
    std::atomic<bool> stop{false};
    std::thread responder([&] {
      while (!stop) {
        for (int c = 0; c < 3; ++c) {
          if (outstanding[c] > 0) {
            --outstanding[c];
            window.release(c);
          }
        }
        std::this_thread::sleep_for(50us);
      }
    });
    ChannelWindow::Clock::duration waited{};
    for (int i = 0; i < 600; ++i) {
      const int c = i % 3;
      REQUIRE(window.acquire(c, ChannelWindow::Clock::now() + 10s, waited));
      if (++outstanding[c] > in_flight) over = true;
      ++sent;
    }
    CHECK(window.wait_idle(ChannelWindow::Clock::now() + 10s, waited));
    stop = true;
    responder.join();
    CHECK_FALSE(over);
    CHECK(window.peak_in_flight() == in_flight);
    CHECK(sent == 600);
    CHECK(waited > 0s);  // the sender did block on full channels
  }
}

TEST_CASE("a full channel times out at its deadline, and cancel wakes a blocked sender") {
  ChannelWindow window(1, 1);
  ChannelWindow::Clock::duration waited{};
  REQUIRE(window.acquire(0, ChannelWindow::Clock::now() + 1s, waited));
  const auto before = ChannelWindow::Clock::now();
  CHECK_FALSE(window.acquire(0, before + 20ms, waited));
  CHECK(ChannelWindow::Clock::now() - before >= 20ms);
  std::thread canceller([&] {
    std::this_thread::sleep_for(20ms);
    window.cancel("agent h2 died");
  });
  CHECK_FALSE(window.acquire(0, ChannelWindow::Clock::now() + 10s, waited));
  canceller.join();
  CHECK(window.cancel_reason() == "agent h2 died");
}

TEST_CASE("each wait's wake-up is kept: from the release that frees it to the sender running") {
  ChannelWindow window(2, 1);
  ChannelWindow::Clock::duration waited{};
  // Free slots: no wait, no wake-up.
  REQUIRE(window.acquire(0, ChannelWindow::Clock::now() + 1s, waited));
  REQUIRE(window.acquire(1, ChannelWindow::Clock::now() + 1s, waited));
  CHECK(window.wakes().count() == 0);
  // Blocked on channel 0: channel 1's release frees nothing it waits for, 50 ms
  // later channel 0's does. Measured from the second release, the wake-up is
  // far below the 50 ms between them, so below half the whole wait; measured
  // from the first, it would be above.
  std::thread reactor([&] {
    std::this_thread::sleep_for(50ms);
    window.release(1);
    std::this_thread::sleep_for(50ms);
    window.release(0);
  });
  const auto start = ChannelWindow::Clock::now();
  REQUIRE(window.acquire(0, ChannelWindow::Clock::now() + 10s, waited));
  const auto whole = std::chrono::duration_cast<std::chrono::nanoseconds>(ChannelWindow::Clock::now() - start).count();
  reactor.join();
  REQUIRE(window.wakes().count() == 1);
  CHECK(window.wakes().quantile(0.5) > 0);
  CHECK(window.wakes().quantile(0.5) < 0.5 * static_cast<double>(whole));
  // Waiting for every channel: only the release that empties the window counts.
  REQUIRE(window.acquire(1, ChannelWindow::Clock::now() + 1s, waited));
  std::thread last([&] {
    std::this_thread::sleep_for(10ms);
    window.release(0);
    std::this_thread::sleep_for(10ms);
    window.release(1);
  });
  REQUIRE(window.wait_idle(ChannelWindow::Clock::now() + 10s, waited));
  last.join();
  CHECK(window.wakes().count() == 2);
}

TEST_CASE("a sender may destroy its window as soon as wait_idle returns, while the last release is returning") {
  // The last release wakes the sender under the lock, so that nothing of the
  // window is touched once the sender can take it; earlier ones wake it after
  // the unlock. Under ThreadSanitizer (`make tsan`) a wake-up after the unlock
  // at the end of the stream races with the window's destruction here.
  for (int round = 0; round < 200; ++round) {
    auto window = std::make_unique<ChannelWindow>(1, 2);
    ChannelWindow::Clock::duration waited{};
    REQUIRE(window->acquire(0, ChannelWindow::Clock::now() + 10s, waited));
    REQUIRE(window->acquire(0, ChannelWindow::Clock::now() + 10s, waited));
    ChannelWindow* raw = window.get();
    std::thread reactor([raw] {
      raw->release(0);
      raw->release(0);
    });
    CHECK(window->wait_idle(ChannelWindow::Clock::now() + 10s, waited));
    window.reset();
    reactor.join();
  }
}

}  // namespace
}  // namespace exsim::transport
