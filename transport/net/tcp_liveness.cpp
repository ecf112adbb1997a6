#include "transport/net/tcp_liveness.h"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

namespace exsim::transport {

void watch_liveness(int fd) {
  const auto set = [fd](int level, int option, int value) {
    setsockopt(fd, level, option, &value, sizeof value);
  };
  set(SOL_SOCKET, SO_KEEPALIVE, 1);
  set(IPPROTO_TCP, TCP_KEEPIDLE, static_cast<int>(kKeepaliveIdle.count()));
  set(IPPROTO_TCP, TCP_KEEPINTVL, static_cast<int>(kKeepaliveInterval.count()));
  set(IPPROTO_TCP, TCP_KEEPCNT, kKeepaliveProbes);
  set(IPPROTO_TCP, TCP_USER_TIMEOUT,
      static_cast<int>(std::chrono::duration_cast<std::chrono::milliseconds>(kUnacknowledgedLimit).count()));
}

}  // namespace exsim::transport
