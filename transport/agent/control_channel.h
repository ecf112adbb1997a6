// The control conversation between the coordinator (`exsim run`) and an agent:
// JSON messages in Control frames over one connection, opened by the mutual
// handshake (wire/handshake.h): nothing is sent, nor taken, before the peer has
// proved it holds the shared token. Once open, each side sends a heartbeat
// every kHeartbeatPeriod, and a side that hears nothing for kSilenceLimit
// closes the channel, naming the silence: a peer stopped, its host down or cut
// off is found in seconds, not at a run's deadline, while TCP alone would
// keep the connection (a stopped process's kernel still answers).
// Any thread may send; receive() blocks its caller until a message arrives,
// the connection closes, or the deadline passes.
#ifndef EXSIM_TRANSPORT_AGENT_CONTROL_CHANNEL_H_
#define EXSIM_TRANSPORT_AGENT_CONTROL_CHANNEL_H_

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include <asio/ip/tcp.hpp>
#include <asio/steady_timer.hpp>

#include "transport/net/connection.h"
#include "transport/net/reactor.h"
#include "transport/wire/handshake.h"

namespace exsim::transport {

// Rung by every channel it is given to when a message arrives or the channel
// closes, so that one thread can wait on many channels at once without polling
// them in turn (a poll's wake-ups take CPU from the exchange it waits on).
class Doorbell {
 public:
  std::uint64_t rings() const {
    std::lock_guard lock(mutex_);
    return rings_;
  }
  void ring() {
    {
      std::lock_guard lock(mutex_);
      ++rings_;
    }
    rung_.notify_all();
  }
  // Waits until the count of rings passes `seen` (a value of rings() taken
  // before looking at the channels) or the deadline; false at the deadline.
  bool wait_past(std::uint64_t seen, std::chrono::steady_clock::time_point deadline) {
    std::unique_lock lock(mutex_);
    return rung_.wait_until(lock, deadline, [&] { return rings_ != seen; });
  }

 private:
  mutable std::mutex mutex_;
  std::condition_variable rung_;
  std::uint64_t rings_ = 0;
};

class ControlChannel final : public Connection::Handler {
 public:
  static constexpr std::chrono::milliseconds kHeartbeatPeriod{500};
  // Ten heartbeats missed: a loaded 2-core machine delays a thread by tens of
  // milliseconds, not seconds; a stopped or cut-off peer stays silent.
  static constexpr std::chrono::seconds kSilenceLimit{5};

  // Wraps a connected socket that belongs to `reactor`; `side` says which end
  // of the handshake this is (the coordinator connects: the client).
  ControlChannel(Reactor& reactor, asio::ip::tcp::socket socket, Handshake::Side side, std::string token,
                 std::shared_ptr<Doorbell> doorbell = nullptr);
  ~ControlChannel();

  // Starts reading and the handshake; from any thread, the reactor's included.
  void start();
  // Queues a message: sent once the handshake is done.
  void send(const std::string& json);
  bool authenticated() const;
  // Waits until every message sent so far has been handed to the kernel in
  // full, the channel has closed, or the deadline has passed; true when all
  // left. Before closing on purpose: a close drops what is still queued.
  bool drain(std::chrono::steady_clock::time_point deadline);
  // The next message, or nullopt when closed (see error()) or at the deadline.
  std::optional<std::string> receive(std::chrono::steady_clock::time_point deadline);
  bool closed() const;
  // Why the channel closed ("" while open).
  std::string error() const;
  // Whether it closed because the handshake failed: one side could not prove
  // it holds the token (or a data connection came to a control port).
  bool refused() const;
  void close();

  void on_frame(Connection& connection, const FrameHeader& header, const char* body) override;
  void on_sent(Connection& connection, std::uint64_t cookie) override;
  void on_closed(Connection& connection, const Connection::CloseReason& reason) override;
  std::shared_ptr<Connection> connection() const { return connection_; }

 private:
  // Runs `fn` on the reactor: at once on its thread, else posted and awaited.
  template <typename F>
  void on_reactor(F&& fn);
  void take_handshake(Connection& connection, const FrameHeader& header, const char* body);
  void refuse(Connection& connection, const std::string& why);
  void send_frame(FrameType type, const std::string& body, std::uint64_t cookie);
  void tick();

  Reactor& reactor_;
  std::shared_ptr<Connection> connection_;
  Handshake handshake_;              // reactor thread
  std::deque<std::pair<std::string, std::uint64_t>> unsent_;  // before the handshake: reactor thread
  asio::steady_timer heartbeat_;
  std::int64_t last_heard_ns_ = 0;   // reactor thread
  std::atomic<bool> authenticated_{false};
  mutable std::mutex mutex_;
  std::condition_variable arrived_;
  std::condition_variable sent_;  // a message handed to the kernel, or closed
  std::uint64_t messages_sent_ = 0;      // by send(): each message's cookie is its number
  std::uint64_t messages_written_ = 0;   // how many were written in full
  std::deque<std::string> inbox_;
  bool closed_ = false;
  bool refused_ = false;
  std::string error_;
  std::shared_ptr<Doorbell> doorbell_;  // rung after arrived_, if set
};

}  // namespace exsim::transport

#endif  // EXSIM_TRANSPORT_AGENT_CONTROL_CHANNEL_H_
