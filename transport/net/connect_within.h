// Opening TCP connections with a deadline of our own. A blocking connect to an
// address that drops SYNs waits for the kernel's retries, about two minutes;
// a run that names a wrong or firewalled host should fail in seconds, naming it.
#ifndef EXSIM_TRANSPORT_NET_CONNECT_WITHIN_H_
#define EXSIM_TRANSPORT_NET_CONNECT_WITHIN_H_

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include <asio/io_context.hpp>
#include <asio/ip/tcp.hpp>

namespace exsim::transport {

// A peer on a LAN or loopback answers a SYN in well under a millisecond, one
// across regions in a few hundred; a SYN lost once is resent after 1 s, so
// this allows two retries.
inline constexpr std::chrono::seconds kConnectTimeout{5};

struct ConnectFailure {
  std::size_t index = 0;  // into the endpoints
  int code = 0;           // errno; ETIMEDOUT for kConnectTimeout's own deadline
  std::string reason;
};

// Connects to every endpoint side by side, within `timeout` in all, from any
// thread (the sockets are then the context's, for its reactor to use). On
// any failure returns no socket and sets `failure` to the first endpoint, in
// order, that failed, and why.
std::vector<asio::ip::tcp::socket> connect_within(asio::io_context& context,
                                                  const std::vector<asio::ip::tcp::endpoint>& endpoints,
                                                  std::chrono::milliseconds timeout,
                                                  std::optional<ConnectFailure>& failure);

}  // namespace exsim::transport

#endif  // EXSIM_TRANSPORT_NET_CONNECT_WITHIN_H_
