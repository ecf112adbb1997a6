// Connections accepted but not yet authenticated (wire/handshake.h), bounded
// in number and in time, so that a listener open to a network it does not own
// cannot be made to hold memory or sockets by peers that prove nothing, nor be
// locked out by them. Each holds a handshake frame at most (Connection's limit
// before it authenticates); at most kMaxConnections wait at once, and beyond
// that the oldest that has sent nothing goes first (an idle flood), or else the
// oldest; none waits longer than kDeadline. A legitimate peer sends its hello
// at once and authenticates within a few round trips, so it is neither.
// Used on one reactor thread.
#ifndef EXSIM_TRANSPORT_NET_UNAUTHENTICATED_H_
#define EXSIM_TRANSPORT_NET_UNAUTHENTICATED_H_

#include <chrono>
#include <cstddef>
#include <deque>
#include <memory>

#include <asio/io_context.hpp>
#include <asio/steady_timer.hpp>

#include "transport/net/connection.h"

namespace exsim::transport {

class UnauthenticatedConnections : public std::enable_shared_from_this<UnauthenticatedConnections> {
 public:
  static constexpr std::size_t kMaxConnections = 64;
  static constexpr std::chrono::seconds kDeadline{5};

  static std::shared_ptr<UnauthenticatedConnections> create(asio::io_context& context,
                                                            std::size_t max_connections = kMaxConnections,
                                                            std::chrono::milliseconds deadline = kDeadline);

  // Watches a connection just accepted and started. Closes one beyond the cap.
  void admit(const std::shared_ptr<Connection>& connection);
  // Closes those past the deadline and forgets the closed and the authenticated.
  void sweep();

 private:
  struct Waiting {
    std::weak_ptr<Connection> connection;
    std::chrono::steady_clock::time_point since;
  };
  UnauthenticatedConnections(asio::io_context& context, std::size_t max_connections,
                             std::chrono::milliseconds deadline)
      : timer_(context), max_connections_(max_connections), deadline_(deadline) {}
  void arm();

  asio::steady_timer timer_;
  std::deque<Waiting> waiting_;  // oldest first
  std::size_t max_connections_;
  std::chrono::milliseconds deadline_;
  bool armed_ = false;
};

}  // namespace exsim::transport

#endif  // EXSIM_TRANSPORT_NET_UNAUTHENTICATED_H_
