#include "transport/agent/control_channel.h"

#include <algorithm>
#include <future>

namespace exsim::transport {

// Control messages are small; anything bigger is a broken or hostile peer.
constexpr std::uint32_t kMaxControlMessage = 16u << 20;

ControlChannel::ControlChannel(Reactor& reactor, asio::ip::tcp::socket socket, std::string expect_token,
                               std::shared_ptr<Doorbell> doorbell)
    : reactor_(reactor),
      connection_(std::make_shared<Connection>(std::move(socket), *this, kMaxControlMessage)),
      expect_token_(std::move(expect_token)),
      authenticated_(expect_token_.empty()),
      doorbell_(std::move(doorbell)) {}

ControlChannel::~ControlChannel() { close(); }

void ControlChannel::start() {
  std::promise<void> started;
  reactor_.post([&] {
    connection_->start();
    started.set_value();
  });
  started.get_future().wait();
}

void ControlChannel::hello(const std::string& token) {
  reactor_.post([this, token] {
    FrameHeader h;
    h.type = FrameType::kHello;
    connection_->send_owned(h, token, 0);
  });
}

void ControlChannel::send(const std::string& json) {
  std::uint64_t number = 0;
  {
    std::lock_guard lock(mutex_);
    number = ++messages_sent_;
  }
  reactor_.post([this, json, number] {
    FrameHeader h;
    h.type = FrameType::kControl;
    connection_->send_owned(h, json, number);
  });
}

bool ControlChannel::drain(std::chrono::steady_clock::time_point deadline) {
  std::unique_lock lock(mutex_);
  sent_.wait_until(lock, deadline, [&] { return messages_written_ >= messages_sent_ || closed_; });
  return messages_written_ >= messages_sent_;
}

void ControlChannel::on_sent(Connection&, std::uint64_t cookie) {
  if (cookie == 0) return;  // the hello
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

void ControlChannel::on_frame(Connection& connection, const FrameHeader& header, const char* body) {
  if (!authenticated_) {
    // The first frame must prove the peer knows the token; refuse anything else.
    if (header.type != FrameType::kHello || std::string(body, header.body_length) != expect_token_) {
      connection.close("refused: the peer did not present the token");
      return;
    }
    authenticated_ = true;
    return;
  }
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
  {
    std::lock_guard lock(mutex_);
    closed_ = true;
    if (error_.empty()) error_ = reason.text;
  }
  arrived_.notify_all();
  sent_.notify_all();
  if (doorbell_) doorbell_->ring();
}

void ControlChannel::close() {
  auto done = std::make_shared<std::promise<void>>();
  auto connection = connection_;
  reactor_.post([connection, done] {
    connection->close("closed");
    done->set_value();
  });
  done->get_future().wait_for(std::chrono::seconds(2));
}

}  // namespace exsim::transport
