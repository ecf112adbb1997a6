// Emulated distance and bandwidth: the receive-side delay line and the token bucket.
#include <doctest/doctest.h>

#include <future>
#include <vector>

#include "transport/net/reactor.h"
#include "transport/net/receive_delay_line.h"
#include "transport/net/token_bucket.h"

namespace exsim::transport {
namespace {

using namespace std::chrono_literals;

TEST_CASE("the token bucket allows a burst, then the rate") {
  TokenBucket bucket(1e9, 1000);  // 1 byte per ns, bursts of 1000 bytes
  CHECK(bucket.reserve(0, 500) == 0);
  CHECK(bucket.reserve(0, 500) == 0);
  CHECK(bucket.reserve(0, 500) == 500);   // 1500 bytes by 500 ns: rate x t + burst
  CHECK(bucket.reserve(0, 1000) == 1500);
  // After a long idle period the bucket is full again, but no fuller.
  CHECK(bucket.reserve(1'000'000, 1000) == 1'000'000);
  CHECK(bucket.reserve(1'000'000, 1) == 1'000'001);
  // Long-run rate: 1 MB in 1000-byte writes starts no earlier than 1 ms minus the burst.
  TokenBucket steady(1e9, 1000);
  std::int64_t last = 0;
  for (int i = 0; i < 1000; ++i) last = steady.reserve(0, 1000);
  CHECK(last == 999'000);  // the 1000th write starts when 999 KB have gone at the rate, less the burst
}

TEST_CASE("bytes that came through since a read was asked for are not held again") {
  TokenBucket bucket(1e9, 1000);  // 1 byte per ns, bursts of 1000 bytes
  // A lone sender at the rate: 8000 bytes read at 8000 ns, asked for at 0. They
  // took the link from 0 to 8000 ns; the next read need not wait.
  CHECK(bucket.reserve_since(0, 8000, 8000) == 8000);
  CHECK(bucket.reserve_since(8000, 16000, 8000) == 16000);
  // Two senders at the rate each: 16000 bytes read by 24000 ns, asked for at
  // 16000. The link carries 8000 in that time: the next read waits until 31000
  // (32000 less the burst).
  CHECK(bucket.reserve_since(16000, 24000, 16000) == 31000);
  // Counted from the read alone, as reserve does, the lone sender's bytes would
  // be held a second time.
  TokenBucket at_read(1e9, 1000);
  CHECK(at_read.reserve(8000, 8000) == 15000);
}

TEST_CASE("a read asked for long before its bytes came gets no credit for the wait") {
  TokenBucket bucket(1e9, 1000);  // 1 byte per ns, bursts of 1000 bytes
  // Two idle connections into one host, each asked for a read at 0; 8000 bytes
  // come on each by 1 ms. The link carried them from 992 us at the earliest, so
  // the first passes and the second is held to 1008 us less the burst.
  CHECK(bucket.reserve_since(0, 1'000'000, 8000) == 1'000'000);
  CHECK(bucket.reserve_since(0, 1'000'000, 8000) == 1'007'000);
}

TEST_CASE("the delay line releases frames after the delay, in order, and measures it") {
  Reactor reactor;
  std::vector<std::uint64_t> order;
  std::vector<std::int64_t> released_at;
  std::promise<void> done;
  const int frames = 40;
  ReceiveDelayLine line(reactor.context(), 2ms, [&](const FrameHeader& h, const char* body) {
    order.push_back(h.call_id);
    released_at.push_back(steady_now_ns() - h.send_time_ns);
    CHECK(body[0] == static_cast<char>('a' + h.call_id % 26));
    if (order.size() == frames) done.set_value();
  });
  std::vector<std::int64_t> stamps(frames);
  reactor.post([&] {
    for (int i = 0; i < frames; ++i) {
      FrameHeader h;
      h.call_id = static_cast<std::uint64_t>(i);
      // Later frames claim earlier send times: they must still leave in arrival order.
      h.send_time_ns = steady_now_ns() - (i % 3) * 500'000;
      h.body_length = 1;
      const char body = static_cast<char>('a' + i % 26);
      line.push(h, &body);
    }
  });
  REQUIRE(done.get_future().wait_for(10s) == std::future_status::ready);
  std::promise<void> checked;
  reactor.post([&] {
    for (int i = 0; i < frames; ++i) CHECK(order[i] == static_cast<std::uint64_t>(i));
    for (auto d : released_at) CHECK(d >= 1'000'000);  // never before send time + delay (1 ms for back-dated ones)
    CHECK(line.achieved_ns().quantile(0.5) >= 1.5e6);
    CHECK(line.held() == 0);
    checked.set_value();
  });
  REQUIRE(checked.get_future().wait_for(5s) == std::future_status::ready);
  reactor.stop();
}

TEST_CASE("the delay line holds a frame for its bytes at the NIC's rate before the distance") {
  Reactor reactor;
  std::promise<std::int64_t> released;
  // 1 MB/s: a frame of 32 + 968 bytes takes 1 ms at the NIC, then 1 ms of distance.
  ReceiveDelayLine line(
      reactor.context(), 1ms,
      [&](const FrameHeader& h, const char*) { released.set_value(steady_now_ns() - h.send_time_ns); }, 1e6);
  std::vector<char> body(968, 'x');
  reactor.post([&] {
    FrameHeader h;
    h.send_time_ns = steady_now_ns();
    h.body_length = static_cast<std::uint32_t>(body.size());
    line.push(h, body.data());
  });
  auto future = released.get_future();
  REQUIRE(future.wait_for(10s) == std::future_status::ready);
  const std::int64_t held = future.get();
  CHECK(held >= 2'000'000);
  CHECK(held < 2'000'000 + 5'000'000);  // the NIC's time and the distance, and a timer's lateness
  reactor.stop();
}

}  // namespace
}  // namespace exsim::transport
