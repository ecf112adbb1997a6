#include "transport/net/receive_delay_line.h"

#include <algorithm>
#include <cstring>

namespace exsim::transport {

ReceiveDelayLine::ReceiveDelayLine(asio::io_context& context, std::chrono::nanoseconds one_way_delay, Sink sink,
                                   double nic_bytes_per_s)
    : timer_(context),
      delay_ns_(one_way_delay.count()),
      nic_ns_per_byte_(nic_bytes_per_s > 0 ? 1e9 / nic_bytes_per_s : 0),
      sink_(std::move(sink)) {}

void ReceiveDelayLine::push(const FrameHeader& header, const char* body) {
  // A stamp from the future (a broken or hostile peer) counts as now: a frame is
  // never held longer than the delay, and the sum cannot overflow.
  const std::int64_t sent = std::min(header.send_time_ns, steady_now_ns());
  const auto on_nic = static_cast<std::int64_t>(
      static_cast<double>(FrameHeader::kSize + header.body_length) * nic_ns_per_byte_);
  const std::int64_t release_at = std::max(last_release_, sent + on_nic + delay_ns_);
  last_release_ = release_at;
  if (delay_ns_ == 0 && on_nic == 0 && held() == 0) {
    achieved_.add(steady_now_ns() - header.send_time_ns);
    sink_(header, body);
    return;
  }
  std::vector<char> storage;
  if (!spare_bodies_.empty()) {
    storage = std::move(spare_bodies_.back());
    spare_bodies_.pop_back();
  }
  storage.assign(body, body + header.body_length);
  held_.push_back(Held{header, release_at, std::move(storage)});
  arm();
}

void ReceiveDelayLine::arm() {
  if (armed_ || held() == 0) return;
  armed_ = true;
  const auto deadline = std::chrono::steady_clock::time_point(std::chrono::nanoseconds(held_[released_].release_at));
  timer_.expires_at(deadline);
  timer_.async_wait([this, alive = std::weak_ptr<char>(alive_)](const asio::error_code& error) {
    if (alive.expired()) return;  // the line was destroyed while the wait was queued
    armed_ = false;
    if (!error) release_due();
  });
}

void ReceiveDelayLine::release_due() {
  const std::int64_t now = steady_now_ns();
  while (held() > 0 && held_[released_].release_at <= now) {
    Held& h = held_[released_++];
    achieved_.add(now - h.header.send_time_ns);
    sink_(h.header, h.body.data());
    spare_bodies_.push_back(std::move(h.body));
  }
  if (held() == 0) {
    held_.clear();
    released_ = 0;
  } else if (released_ > 64 && released_ * 2 > held_.size()) {
    held_.erase(held_.begin(), held_.begin() + static_cast<std::ptrdiff_t>(released_));
    released_ = 0;
  }
  arm();
}

void ReceiveDelayLine::cancel() {
  timer_.cancel();
  held_.clear();
  released_ = 0;
}

}  // namespace exsim::transport
