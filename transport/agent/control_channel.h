// The control conversation between the coordinator (`exsim run`) and an agent:
// JSON messages in Control frames over one connection, opened by a Hello frame
// carrying the shared token. Any thread may send; receive() blocks its caller
// until a message arrives, the connection closes, or the deadline passes.
#ifndef EXSIM_TRANSPORT_AGENT_CONTROL_CHANNEL_H_
#define EXSIM_TRANSPORT_AGENT_CONTROL_CHANNEL_H_

#include <chrono>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include <asio/ip/tcp.hpp>

#include "transport/net/connection.h"
#include "transport/net/reactor.h"

namespace exsim::transport {

class ControlChannel final : public Connection::Handler {
 public:
  // Wraps a connected socket that belongs to `reactor`. With `expect_token`, the
  // first frame must be a Hello carrying exactly that token, or the channel closes.
  ControlChannel(Reactor& reactor, asio::ip::tcp::socket socket, std::string expect_token = {});
  ~ControlChannel();

  void start();
  void hello(const std::string& token);
  void send(const std::string& json);
  // The next message, or nullopt when closed (see error()) or at the deadline.
  std::optional<std::string> receive(std::chrono::steady_clock::time_point deadline);
  bool closed() const;
  // Why the channel closed ("" while open).
  std::string error() const;
  void close();

  void on_frame(Connection& connection, const FrameHeader& header, const char* body) override;
  void on_closed(Connection& connection, const std::string& reason) override;

 private:
  Reactor& reactor_;
  std::shared_ptr<Connection> connection_;
  std::string expect_token_;
  bool authenticated_;
  mutable std::mutex mutex_;
  std::condition_variable arrived_;
  std::deque<std::string> inbox_;
  bool closed_ = false;
  std::string error_;
};

}  // namespace exsim::transport

#endif  // EXSIM_TRANSPORT_AGENT_CONTROL_CHANNEL_H_
