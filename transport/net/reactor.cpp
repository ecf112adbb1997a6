#include "transport/net/reactor.h"

namespace exsim::transport {

Reactor::Reactor() : work_(asio::make_work_guard(context_)), thread_([this] { context_.run(); }) {}

Reactor::~Reactor() { stop(); }

void Reactor::stop() {
  work_.reset();
  context_.stop();
  if (thread_.joinable() && !on_reactor_thread()) thread_.join();
}

}  // namespace exsim::transport
