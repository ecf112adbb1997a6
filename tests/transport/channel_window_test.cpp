// The sender's in-flight bound across threads: never exceeded, blocking with a
// deadline, and woken by cancel.
#include <doctest/doctest.h>

#include <atomic>
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

}  // namespace
}  // namespace exsim::transport
