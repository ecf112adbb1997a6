#include "transport/net/connect_within.h"

#include <poll.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

namespace exsim::transport {

std::vector<asio::ip::tcp::socket> connect_within(asio::io_context& context,
                                                  const std::vector<asio::ip::tcp::endpoint>& endpoints,
                                                  std::chrono::milliseconds timeout,
                                                  std::optional<ConnectFailure>& failure) {
  failure.reset();
  std::vector<asio::ip::tcp::socket> sockets;
  std::vector<std::string> errors(endpoints.size());
  std::vector<bool> pending(endpoints.size(), false);
  std::vector<int> codes(endpoints.size(), 0);  // errno of each failure
  for (std::size_t i = 0; i < endpoints.size(); ++i) {
    sockets.emplace_back(context);
    asio::error_code error;
    sockets[i].open(endpoints[i].protocol(), error);
    if (!error) sockets[i].native_non_blocking(true, error);
    if (error) {
      errors[i] = error.message();
      codes[i] = error.value();
      continue;
    }
    // The system's connect, not Asio's: Asio's synchronous connect waits for
    // the outcome however long it takes.
    if (::connect(sockets[i].native_handle(), endpoints[i].data(), static_cast<socklen_t>(endpoints[i].size())) == 0) {
      continue;
    }
    if (errno == EINPROGRESS || errno == EINTR) {
      pending[i] = true;
    } else {
      codes[i] = errno;
      errors[i] = std::strerror(errno);
    }
  }
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (true) {
    std::vector<pollfd> fds;
    std::vector<std::size_t> which;
    for (std::size_t i = 0; i < endpoints.size(); ++i) {
      if (!pending[i]) continue;
      fds.push_back({sockets[i].native_handle(), POLLOUT, 0});
      which.push_back(i);
    }
    if (fds.empty()) break;
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      for (const std::size_t i : which) {
        errors[i] = fmt::format("no answer to the connection within {} ms", timeout.count());
        codes[i] = ETIMEDOUT;
        pending[i] = false;
      }
      break;
    }
    const int ready = poll(fds.data(), fds.size(), static_cast<int>(left.count()));
    if (ready < 0 && errno != EINTR) {
      for (const std::size_t i : which) {
        codes[i] = errno;
        errors[i] = std::strerror(errno);
      }
      break;
    }
    for (std::size_t k = 0; k < fds.size(); ++k) {
      if (fds[k].revents == 0) continue;
      const std::size_t i = which[k];
      int code = 0;
      socklen_t length = sizeof code;
      getsockopt(fds[k].fd, SOL_SOCKET, SO_ERROR, &code, &length);
      if (code != 0) {
        codes[i] = code;
        errors[i] = std::strerror(code);
      }
      pending[i] = false;
    }
  }
  for (std::size_t i = 0; i < endpoints.size(); ++i) {
    if (!errors[i].empty()) {
      failure = ConnectFailure{i, codes[i], errors[i]};
      return {};
    }
    asio::error_code ignored;
    sockets[i].native_non_blocking(false, ignored);
  }
  return sockets;
}

}  // namespace exsim::transport
