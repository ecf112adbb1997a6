#include "transport/agent/control_channel.h"

#include <algorithm>
#include <functional>
#include <future>

#include <fmt/format.h>

#include "transport/net/steady_clock.h"

namespace exsim::transport {
namespace {

// Control messages are small; anything bigger is a broken or hostile peer.
constexpr std::uint32_t kMaxControlMessage = 16u << 20;
// What a control connection's client says it is, so that a data connection
// cannot be taken for one (the proofs cover it).
constexpr const char* kControlContext = "control";

}  // namespace

ControlChannel::ControlChannel(Reactor& reactor, asio::ip::tcp::socket socket, Handshake::Side side,
                               std::string token, std::shared_ptr<Doorbell> doorbell)
    : reactor_(reactor),
      // Held to a handshake frame until the peer has proved itself.
      connection_(std::make_shared<Connection>(std::move(socket), *this, Handshake::kMaxFrameBody)),
      handshake_(side, std::move(token), kControlContext),
      heartbeat_(reactor.context()),
      doorbell_(std::move(doorbell)) {}

ControlChannel::~ControlChannel() { close(); }

template <typename F>
void ControlChannel::on_reactor(F&& fn) {
  if (reactor_.on_reactor_thread()) {
    fn();
    return;
  }
  // The task owns what it runs: a wait that gives up leaves nothing of this
  // frame for it to touch.
  auto task = std::make_shared<std::function<void()>>(std::forward<F>(fn));
  auto done = std::make_shared<std::promise<void>>();
  reactor_.post([task, done] {
    (*task)();
    done->set_value();
  });
  done->get_future().wait_for(std::chrono::seconds(2));
}

void ControlChannel::start() {
  on_reactor([this] {
    connection_->start();
    last_heard_ns_ = steady_now_ns();
    if (auto hello = handshake_.opening()) send_frame(hello->type, hello->body, 0);
    tick();
  });
}

void ControlChannel::send_frame(FrameType type, const std::string& body, std::uint64_t cookie) {
  FrameHeader h;
  h.type = type;
  connection_->send_owned(h, body, cookie);
}

void ControlChannel::send(const std::string& json) {
  std::uint64_t number = 0;
  {
    std::lock_guard lock(mutex_);
    number = ++messages_sent_;
  }
  reactor_.post([this, json, number] {
    if (handshake_.done()) {
      send_frame(FrameType::kControl, json, number);
    } else {
      unsent_.emplace_back(json, number);  // not before the peer has proved itself
    }
  });
}

bool ControlChannel::authenticated() const { return authenticated_; }

void ControlChannel::tick() {
  // Each period: a heartbeat out once open, and the peer's silence checked.
  if (!connection_->open()) return;
  const auto silent_ns = steady_now_ns() - last_heard_ns_;
  if (silent_ns > std::chrono::nanoseconds(kSilenceLimit).count()) {
    connection_->close(handshake_.done()
                           ? fmt::format("silent for {:.1f} s, heartbeats being due every {} ms: the peer is "
                                         "stopped, or its host down or cut off",
                                         static_cast<double>(silent_ns) * 1e-9, kHeartbeatPeriod.count())
                           : fmt::format("no handshake within {} s", kSilenceLimit.count()));
    return;
  }
  if (handshake_.done()) send_frame(FrameType::kHeartbeat, {}, 0);
  heartbeat_.expires_after(kHeartbeatPeriod);
  // The connection, held, says whether this channel still exists: a closed
  // one's channel may be gone (it closes before it goes).
  heartbeat_.async_wait([this, connection = connection_](const asio::error_code& error) {
    if (!error && connection->open()) tick();
  });
}

bool ControlChannel::drain(std::chrono::steady_clock::time_point deadline) {
  std::unique_lock lock(mutex_);
  sent_.wait_until(lock, deadline, [&] { return messages_written_ >= messages_sent_ || closed_; });
  return messages_written_ >= messages_sent_;
}

void ControlChannel::on_sent(Connection&, std::uint64_t cookie) {
  if (cookie == 0) return;  // the handshake's frames and heartbeats
  {
    // Counted, not the highest number seen: threads number their messages
    // before posting them, so they may reach the connection out of order.
    std::lock_guard lock(mutex_);
    ++messages_written_;
  }
  sent_.notify_all();
}

std::optional<std::string> ControlChannel::receive(std::chrono::steady_clock::time_point deadline) {
  std::unique_lock lock(mutex_);
  if (!arrived_.wait_until(lock, deadline, [&] { return !inbox_.empty() || closed_; })) return std::nullopt;
  if (inbox_.empty()) return std::nullopt;
  std::string message = std::move(inbox_.front());
  inbox_.pop_front();
  return message;
}

bool ControlChannel::closed() const {
  std::lock_guard lock(mutex_);
  return closed_ && inbox_.empty();
}

std::string ControlChannel::error() const {
  std::lock_guard lock(mutex_);
  return error_;
}

void ControlChannel::refuse(Connection& connection, const std::string& why) {
  {
    std::lock_guard lock(mutex_);
    refused_ = true;
  }
  connection.close(why);
}

bool ControlChannel::refused() const {
  std::lock_guard lock(mutex_);
  return refused_;
}

void ControlChannel::take_handshake(Connection& connection, const FrameHeader& header, const char* body) {
  std::optional<Handshake::Frame> reply;
  const Handshake::Outcome outcome = handshake_.take(header, body, reply);
  if (reply) send_frame(reply->type, reply->body, 0);
  if (outcome == Handshake::Outcome::kRefused) {
    refuse(connection, "refused: " + handshake_.refusal());
    return;
  }
  if (outcome != Handshake::Outcome::kDone) return;
  if (handshake_.context() != kControlContext) {
    refuse(connection, fmt::format("refused: a '{}' connection on a control port", handshake_.context()));
    return;
  }
  connection.authenticated(kMaxControlMessage);
  authenticated_ = true;
  for (auto& [json, number] : unsent_) send_frame(FrameType::kControl, json, number);
  unsent_.clear();
}

void ControlChannel::on_frame(Connection& connection, const FrameHeader& header, const char* body) {
  last_heard_ns_ = steady_now_ns();
  if (!handshake_.done()) {
    take_handshake(connection, header, body);
    return;
  }
  if (header.type == FrameType::kHeartbeat) return;
  if (header.type != FrameType::kControl) {
    connection.close("unexpected frame on the control connection");
    return;
  }
  {
    std::lock_guard lock(mutex_);
    inbox_.emplace_back(body, header.body_length);
  }
  arrived_.notify_all();
  if (doorbell_) doorbell_->ring();
}

void ControlChannel::on_closed(Connection&, const Connection::CloseReason& reason) {
  heartbeat_.cancel();
  {
    std::lock_guard lock(mutex_);
    closed_ = true;
    // A client that leaves after the agent's proof is one that found it
    // wrong: a coordinator with another token.
    if (error_.empty() && handshake_.awaiting_proof()) {
      refused_ = true;
      error_ = "refused: the peer left the handshake before proving it holds the token (as a coordinator with "
               "another token does)";
    }
    if (error_.empty()) error_ = reason.text;
  }
  arrived_.notify_all();
  sent_.notify_all();
  if (doorbell_) doorbell_->ring();
}

void ControlChannel::close() {
  on_reactor([this] {
    heartbeat_.cancel();
    connection_->close("closed");
  });
}

}  // namespace exsim::transport
