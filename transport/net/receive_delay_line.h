// Distance on one machine: holds each inbound frame until its sender's send
// time plus a fixed one-way delay, then hands it on (the kernel's netem, which
// would delay packets instead, is missing on the machines exsim is checked
// on, and holding frames unread would emulate a slow reader, not distance). The sender stamps steady_clock time into the frame header; all agents on
// one machine share that clock. Deadlines are absolute, every due frame is
// released on each wake-up, and a frame never leaves before the one received
// before it (release = max(previous release, send time + delay)), so jitter in
// the timer cannot reorder a connection's frames. The delay actually achieved
// is measured, since timer overshoot is comparable to datacenter delays.
//
// A frame's last byte leaves a NIC its size over the rate after its first:
// given the NIC's rate, the line holds a frame that much longer, since the
// pacing's burst lets a write onto an idle link go at once and the stamp is
// taken before it (a 229 KiB call at 10 Gbit/s arrived 100 us early, a tenth
// of a round trip at 0.6 ms).
//
// Thread rule: reactor thread only. Held bodies are copied into pooled buffers.
#ifndef EXSIM_TRANSPORT_NET_RECEIVE_DELAY_LINE_H_
#define EXSIM_TRANSPORT_NET_RECEIVE_DELAY_LINE_H_

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include <asio/io_context.hpp>
#include <asio/steady_timer.hpp>

#include "models/base/histogram.h"
#include "transport/net/steady_clock.h"
#include "transport/wire/frame.h"

namespace exsim::transport {

class ReceiveDelayLine {
 public:
  using Sink = std::function<void(const FrameHeader& header, const char* body)>;

  // `nic_bytes_per_s` > 0: the sending NIC's rate, whose time for each frame's
  // bytes comes before the delay.
  ReceiveDelayLine(asio::io_context& context, std::chrono::nanoseconds one_way_delay, Sink sink,
                   double nic_bytes_per_s = 0);
  ReceiveDelayLine(const ReceiveDelayLine&) = delete;
  ReceiveDelayLine& operator=(const ReceiveDelayLine&) = delete;

  // A frame as it arrived; released to the sink when due (at once with no delay).
  void push(const FrameHeader& header, const char* body);
  void cancel();

  std::size_t held() const { return held_.size() - released_; }
  // Achieved one-way delay (send stamp to release), nanoseconds.
  const LogHistogram& achieved_ns() const { return achieved_; }

 private:
  struct Held {
    FrameHeader header;
    std::int64_t release_at;
    std::vector<char> body;  // reused: its capacity stays with the slot
  };

  void arm();
  void release_due();

  asio::steady_timer timer_;
  const std::int64_t delay_ns_;
  const double nic_ns_per_byte_;
  Sink sink_;
  std::vector<Held> held_;  // FIFO: [released_, size) are waiting
  std::size_t released_ = 0;
  std::vector<std::vector<char>> spare_bodies_;
  std::int64_t last_release_ = 0;
  bool armed_ = false;
  LogHistogram achieved_;
  std::shared_ptr<char> alive_ = std::make_shared<char>();  // lets a queued wait see the line is gone
};

}  // namespace exsim::transport

#endif  // EXSIM_TRANSPORT_NET_RECEIVE_DELAY_LINE_H_
