#include "transport/rpc/peer_probe.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <memory>
#include <future>
#include <stdexcept>
#include <string>

#include <fmt/format.h>

#include "transport/net/steady_clock.h"

namespace exsim::transport {
namespace {

// Ping calls to one peer: `calls` of `body_bytes` each, `in_flight` at a time.
// Issued and answered on the host's reactor thread; waited on from the caller's.
class PingCalls final : public CallSink {
 public:
  PingCalls(Host& host, int to, std::size_t body_bytes, int calls, int in_flight)
      : host_(host), to_(to), body_(body_bytes, 'p'), calls_(calls), in_flight_(std::max(1, in_flight)) {}

  // Every call's network time (ns), and the time from the first call to the last answer.
  std::vector<std::int64_t> run(std::chrono::steady_clock::time_point deadline, std::int64_t& elapsed_ns) {
    times_.reserve(static_cast<std::size_t>(calls_));
    if (calls_ == 0) return {};
    // The first calls go from the reactor thread too: every count is its own.
    host_.reactor().post([this] {
      started_ns_ = steady_now_ns();
      for (int i = 0; i < std::min(in_flight_, calls_); ++i) issue();
    });
    auto future = finished_.get_future();
    if (future.wait_until(deadline) != std::future_status::ready) {
      // The calls still out refer to this object: keep it until the host stops.
      throw std::runtime_error(fmt::format("host {} did not answer {} of {} probe calls in time", to_,
                                           calls_ - answered_.load(), calls_));
    }
    elapsed_ns = elapsed_ns_;
    return times_;
  }

  void on_call_done(std::uint64_t, const CallResult&, std::int64_t network_ns) override {
    times_.push_back(network_ns);
    ++answered_;
    if (issued_ < calls_) {
      issue();
    } else if (answered_ == calls_) {
      elapsed_ns_ = steady_now_ns() - started_ns_;
      finished_.set_value();
    }
  }

 private:
  void issue() {
    ++issued_;
    std::array<asio::const_buffer, 3> pieces{asio::buffer(body_)};
    host_.call(to_, FrameType::kPing, pieces, 1, this, static_cast<std::uint64_t>(issued_));
  }

  Host& host_;
  const int to_;
  const std::string body_;
  const int calls_;
  const int in_flight_;
  int issued_ = 0;               // reactor thread, after the first calls
  std::atomic<int> answered_{0};
  std::vector<std::int64_t> times_;
  std::int64_t started_ns_ = 0, elapsed_ns_ = 0;
  std::promise<void> finished_;
};

}  // namespace

PeerPath probe_peer(Host& host, int to, const ProbeOptions& options) {
  const auto deadline = std::chrono::steady_clock::now() + options.deadline;
  PeerPath path;
  std::int64_t elapsed_ns = 0;
  // Kept alive until the host stops, should a peer leave calls unanswered.
  auto round_trips = std::make_shared<PingCalls>(host, to, 0, options.round_trips, 1);
  host.retire(round_trips);
  for (const std::int64_t ns : round_trips->run(deadline, elapsed_ns)) path.round_trip_ms.push_back(static_cast<double>(ns) * 1e-6);
  const int bulk_calls = static_cast<int>(options.bulk_bytes / std::max<std::size_t>(1, options.bulk_call_bytes));
  auto bulk = std::make_shared<PingCalls>(host, to, options.bulk_call_bytes, bulk_calls, options.bulk_in_flight);
  host.retire(bulk);
  bulk->run(deadline, elapsed_ns);
  if (elapsed_ns > 0) {
    path.bytes_per_s = static_cast<double>(bulk_calls) * static_cast<double>(options.bulk_call_bytes) /
                       (static_cast<double>(elapsed_ns) * 1e-9);
  }
  return path;
}

}  // namespace exsim::transport
