// One host of the real exchange: its reactor, its listening socket, one
// outbound connection to every host (itself included: Impala sends even
// same-process batches through its own RPC port), and the inbound connections
// from them. Calls go out on the connection to their destination and their
// responses come back on it (KRPC's connection per host pair and direction).
// On one machine, inbound calls pass a delay line of half the pair's RTT, and
// responses are held likewise on the way back, so a call sees the full RTT.
//
// Thread rule: call() and respond() may be used from any thread; they post to
// the reactor (respond() on the reactor thread sends at once). Sinks and
// receivers are called on the reactor thread.
#ifndef EXSIM_TRANSPORT_RPC_HOST_H_
#define EXSIM_TRANSPORT_RPC_HOST_H_

#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <asio/ip/tcp.hpp>

#include "models/base/histogram.h"
#include "transport/net/connection.h"
#include "transport/net/handler_pool.h"
#include "transport/net/reactor.h"
#include "transport/net/stall_watch.h"
#include "transport/net/receive_delay_line.h"
#include "transport/net/token_bucket.h"
#include "transport/net/unauthenticated.h"
#include "transport/rpc/messages.h"
#include "transport/wire/handshake.h"

namespace exsim::transport {

// Told when a call has its response.
class CallSink {
 public:
  // `network_ns`: the whole call minus the receiver's time, as Impala counts it.
  virtual void on_call_done(std::uint64_t cookie, const CallResult& result, std::int64_t network_ns) = 0;

 protected:
  ~CallSink() = default;
};

// Receives the calls addressed to one exchange run on this host.
class CallTarget {
 public:
  // `body` (valid during the call only) starts with the CallAddress.
  virtual void on_call(const std::shared_ptr<Connection>& from, std::uint64_t call_id, const FrameHeader& header,
                       const char* body, std::int64_t arrived_ns) = 0;

 protected:
  ~CallTarget() = default;
};

class Host {
 public:
  struct Options {
    int index = 0;
    int hosts = 0;  // in the run: a hello naming another index is refused
    std::string listen_address = "127.0.0.1";  // data port: an ephemeral port on this address
    std::uint32_t max_frame_bytes = 64u << 20;
    // One-way delay to add to frames from each host (index), on one machine; empty: none.
    std::vector<std::chrono::nanoseconds> one_way_delay;
    // Bandwidth of the host's NIC, bytes per second each way, shared by all its
    // connections (token buckets, one per direction, on one machine); 0: not capped.
    double nic_bytes_per_s = 0;
    // The run's secret: every data connection opens with the handshake
    // (wire/handshake.h), proving both ends hold it; one that does not is
    // closed, and does not fail the run.
    std::string token;
  };

  explicit Host(Options options);
  ~Host();
  Host(const Host&) = delete;
  Host& operator=(const Host&) = delete;

  asio::ip::tcp::endpoint endpoint() const { return endpoint_; }
  int index() const { return options_.index; }
  Reactor& reactor() { return reactor_; }

  // Opens the outbound connections, `peers[i]` being host i's endpoint, each
  // authenticated by the handshake. Blocking; throws naming the peer that could
  // not be reached (within kConnectTimeout) or refused.
  void connect(const std::vector<asio::ip::tcp::endpoint>& peers);

  // Sends a call to host `to`: frame type plus up to three payload pieces, which
  // must stay valid until the sink is told the call is done.
  void call(int to, FrameType type, std::array<asio::const_buffer, 3> pieces, std::size_t piece_count, CallSink* sink,
            std::uint64_t cookie);
  // Answers call `call_id` received on `on`.
  void respond(const std::shared_ptr<Connection>& on, std::uint64_t call_id, const CallResult& result);

  void add_target(std::uint32_t run, CallTarget* target);
  // After this returns, no call reaches the target any more.
  void remove_target(std::uint32_t run);

  // Keeps `object` alive until the host stops: a failed run's senders, whose
  // calls may still be queued on a connection or awaiting a response.
  void retire(std::shared_ptr<void> object) {
    std::lock_guard lock(retired_mutex_);
    retired_.push_back(std::move(object));
  }

  // Called (on the reactor thread) when a connection fails: the run must fail.
  // Clear it (an empty function) before what it refers to goes away.
  void set_failure_handler(std::function<void(const std::string&)> handler) {
    std::lock_guard lock(failure_mutex_);
    on_failure_ = std::move(handler);
  }

  void stop();

  // One-way delays achieved, in ms, sender's stamp to release (the emulated
  // distance plus the real path), by host index; -1 where nothing travelled.
  // A call's achieved RTT is its one-way delay, measured by the callee, plus
  // its response's, measured by the caller. Medians for reports; means where
  // a total matters (calibration: what the emulated network adds per call).
  struct AchievedDelays {
    std::vector<double> calls_from;      // calls from each host to this one
    std::vector<double> responses_from;  // responses from each host to this one's calls
  };
  enum class Statistic { kMedian, kMean };
  AchievedDelays achieved_delays_ms(Statistic statistic = Statistic::kMedian);

  // The longest stall of this host (net/stall_watch.h) overlapping
  // [from_ns, to_ns] (steady_now_ns): its process not running, or a
  // connection's data unacknowledged; nullopt when none. Any thread.
  std::optional<StallWatch::Stall> longest_stall(std::int64_t from_ns, std::int64_t to_ns) const {
    return stalls_->longest(from_ns, to_ns);
  }

  // CPU time the host's reactor thread has used so far, ns: RPC work (framing,
  // system calls, delay lines, admission) plus the batches it decoded.
  std::int64_t reactor_cpu_ns();

 private:
  class Outbound;
  class Inbound;

  void accept_next();
  // Puts a connection to another host behind this host's NIC token buckets.
  void pace(Connection& connection);
  // The rate of the NIC frames from `host` leave by (every host's the same),
  // for the delay line's hold; 0 within a host or without a NIC cap.
  double nic_rate_from(int host) const;
  void fail(const std::string& reason);
  // Runs `fn` on the reactor thread, from any thread, its handler's memory
  // from handlers_ (defined in host.cpp, its only user).
  template <typename F>
  void post_pooled(F&& fn);

  Options options_;
  HandlerPool handlers_;  // handlers posted from other threads (before reactor_: outlives its queue)
  // Before reactor_: connections use them until the reactor stops.
  std::unique_ptr<TokenBucket> nic_;     // outbound
  std::unique_ptr<TokenBucket> nic_in_;  // inbound
  Reactor reactor_;
  asio::ip::tcp::acceptor acceptor_;
  asio::ip::tcp::endpoint endpoint_;
  std::shared_ptr<UnauthenticatedConnections> unauthenticated_;  // inbound, until they prove themselves
  std::shared_ptr<StallWatch> stalls_;
  std::vector<std::shared_ptr<Outbound>> outbound_;  // by destination host
  std::vector<std::shared_ptr<Inbound>> inbound_;
  // One-way delays achieved on inbound connections since closed, by source
  // host (reactor thread only): a peer that stops first must not take the
  // delays its calls met here out of this host's report.
  std::map<int, LogHistogram> closed_calls_achieved_;
  std::mutex targets_mutex_;
  std::map<std::uint32_t, CallTarget*> targets_;
  std::mutex failure_mutex_;
  std::function<void(const std::string&)> on_failure_;
  std::atomic<bool> stopped_{false};
  std::mutex retired_mutex_;
  std::vector<std::shared_ptr<void>> retired_;
};

}  // namespace exsim::transport

#endif  // EXSIM_TRANSPORT_RPC_HOST_H_
