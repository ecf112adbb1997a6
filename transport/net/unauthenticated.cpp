#include "transport/net/unauthenticated.h"

#include <algorithm>

namespace exsim::transport {

std::shared_ptr<UnauthenticatedConnections> UnauthenticatedConnections::create(asio::io_context& context,
                                                                               std::size_t max_connections,
                                                                               std::chrono::milliseconds deadline) {
  return std::shared_ptr<UnauthenticatedConnections>(
      new UnauthenticatedConnections(context, max_connections, deadline));
}

void UnauthenticatedConnections::admit(const std::shared_ptr<Connection>& connection) {
  sweep();
  waiting_.push_back({connection, std::chrono::steady_clock::now()});
  if (waiting_.size() > max_connections_) {
    auto victim = std::find_if(waiting_.begin(), waiting_.end(), [](const Waiting& w) {
      const auto c = w.connection.lock();
      return c && c->bytes_read() == 0;
    });
    if (victim == waiting_.end()) victim = waiting_.begin();
    if (auto c = victim->connection.lock()) c->close("dropped: too many connections waiting to authenticate");
    waiting_.erase(victim);
  }
  arm();
}

void UnauthenticatedConnections::sweep() {
  const auto now = std::chrono::steady_clock::now();
  std::erase_if(waiting_, [&](const Waiting& w) {
    const auto c = w.connection.lock();
    if (!c || !c->open() || c->is_authenticated()) return true;
    if (now - w.since < deadline_) return false;
    c->close("dropped: did not authenticate in time");
    return true;
  });
}

void UnauthenticatedConnections::arm() {
  if (armed_ || waiting_.empty()) return;
  armed_ = true;
  // A sweep a few times within each deadline; nothing runs while none wait.
  timer_.expires_after(deadline_ / 4);
  timer_.async_wait([weak = weak_from_this()](const asio::error_code& error) {
    const auto self = weak.lock();
    if (!self || error) return;
    self->armed_ = false;
    self->sweep();
    self->arm();
  });
}

}  // namespace exsim::transport
