#include "transport/agent/control_listener.h"

#include <cstdio>
#include <future>
#include <utility>

namespace exsim::transport {

ControlListener::ControlListener(Reactor& reactor, const asio::ip::tcp::endpoint& at, std::string token)
    : reactor_(reactor),
      token_(std::move(token)),
      acceptor_(reactor.context(), at),
      endpoint_(acceptor_.local_endpoint()),
      unauthenticated_(UnauthenticatedConnections::create(reactor.context())) {
  reactor_.post([this] { accept_next(); });
}

ControlListener::~ControlListener() {
  close();
  // Its timer is the reactor's: let go on the reactor's thread.
  reactor_.post([unauthenticated = std::move(unauthenticated_)] {});
}

void ControlListener::accept_next() {
  acceptor_.async_accept([this](const asio::error_code& error, asio::ip::tcp::socket socket) {
    if (error == asio::error::operation_aborted || !acceptor_.is_open()) return;
    if (!error) {
      auto channel = std::make_unique<ControlChannel>(reactor_, std::move(socket), Handshake::Side::kServer, token_,
                                                      doorbell_);
      channel->start();  // on this thread: at once
      unauthenticated_->admit(channel->connection());
      std::lock_guard lock(mutex_);
      if (closed_) return;  // the channel closes as it goes
      accepted_.push_back(std::move(channel));
    }
    // A failed accept (out of descriptors, a connection reset before it was
    // taken) is that connection's, not the listener's: go on.
    accept_next();
  });
}

void ControlListener::prune(std::vector<std::unique_ptr<ControlChannel>>& channels) {
  std::erase_if(channels, [](const std::unique_ptr<ControlChannel>& channel) {
    if (!channel->closed()) return false;
    // Refusals of a handshake are said; drops of connections that sent nothing
    // (or too late) are not, so that a flood cannot fill the agent's log.
    if (channel->refused()) std::fprintf(stderr, "exsim agent: a connection %s\n", channel->error().c_str());
    return true;
  });
}

std::optional<ControlListener::Claim> ControlListener::wait(std::chrono::steady_clock::time_point deadline) {
  while (true) {
    const std::uint64_t seen = doorbell_->rings();
    {
      std::lock_guard lock(mutex_);
      for (auto& channel : accepted_) waiting_.push_back(std::move(channel));
      accepted_.clear();
    }
    for (auto it = waiting_.begin(); it != waiting_.end(); ++it) {
      // A message arrives only once the handshake is done.
      if (auto first = (*it)->receive(std::chrono::steady_clock::now())) {
        Claim claim{std::move(*it), std::move(*first)};
        waiting_.erase(it);
        close();
        return claim;
      }
    }
    prune(waiting_);
    if (std::chrono::steady_clock::now() >= deadline) return std::nullopt;
    // Rung by every message and close; new connections are looked at by the
    // next ring or within the period.
    doorbell_->wait_past(seen, std::min(deadline, std::chrono::steady_clock::now() + std::chrono::milliseconds(200)));
  }
}

void ControlListener::close() {
  {
    std::lock_guard lock(mutex_);
    if (closed_) return;
    closed_ = true;
    for (auto& channel : accepted_) waiting_.push_back(std::move(channel));
    accepted_.clear();
  }
  auto done = std::make_shared<std::promise<void>>();
  reactor_.post([this, done] {
    asio::error_code ignored;
    acceptor_.close(ignored);
    done->set_value();
  });
  done->get_future().wait_for(std::chrono::seconds(2));
  waiting_.clear();  // closes each
}

}  // namespace exsim::transport
