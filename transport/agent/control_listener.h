// An agent's control port. Connections are accepted on the agent's reactor as
// fast as they come, each a control channel waiting for the handshake, held
// to a handshake's few hundred bytes and bounded in number and time
// (net/unauthenticated.h), so that neither a flood of idle connections nor a
// stream of large ones keeps the coordinator out or takes the agent's memory.
// The coordinator is the first connection that has proved it holds the token
// and sent its first message; the listener then stops, closing the others:
// one coordinator at a time.
#ifndef EXSIM_TRANSPORT_AGENT_CONTROL_LISTENER_H_
#define EXSIM_TRANSPORT_AGENT_CONTROL_LISTENER_H_

#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <asio/ip/tcp.hpp>

#include "transport/agent/control_channel.h"
#include "transport/net/reactor.h"
#include "transport/net/unauthenticated.h"

namespace exsim::transport {

class ControlListener {
 public:
  // Binds and listens at once; throws on a bind failure.
  ControlListener(Reactor& reactor, const asio::ip::tcp::endpoint& at, std::string token);
  ~ControlListener();

  asio::ip::tcp::endpoint endpoint() const { return endpoint_; }

  struct Claim {
    std::unique_ptr<ControlChannel> channel;
    std::string first_message;
  };
  // Waits for the coordinator until `deadline` (nullopt then). Refusals are
  // written to stderr as they happen; the rest are counted.
  std::optional<Claim> wait(std::chrono::steady_clock::time_point deadline);
  // Stops listening and closes every connection but the claimed one.
  void close();

 private:
  void accept_next();
  // Forgets closed channels, saying why each that spoke was refused.
  void prune(std::vector<std::unique_ptr<ControlChannel>>& channels);

  Reactor& reactor_;
  std::string token_;
  asio::ip::tcp::acceptor acceptor_;
  asio::ip::tcp::endpoint endpoint_;
  std::shared_ptr<Doorbell> doorbell_ = std::make_shared<Doorbell>();
  std::shared_ptr<UnauthenticatedConnections> unauthenticated_;  // reactor thread
  std::mutex mutex_;
  std::vector<std::unique_ptr<ControlChannel>> accepted_;  // under mutex_, from the reactor
  std::vector<std::unique_ptr<ControlChannel>> waiting_;   // the waiting thread's
  bool closed_ = false;                                    // under mutex_
};

}  // namespace exsim::transport

#endif  // EXSIM_TRANSPORT_AGENT_CONTROL_LISTENER_H_
