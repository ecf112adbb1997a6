#include "transport/net/reactor.h"

#include <sys/prctl.h>

namespace exsim::transport {

Reactor::Reactor()
    : work_(asio::make_work_guard(context_)), thread_([this] {
        // Linux lets a sleeping thread's timers fire up to 50 us late (timer slack),
        // to batch wakeups. This thread's timers impose the emulated RTTs and the
        // NICs' pace, which must not gain that much: a slack of 1 ns.
        prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
        context_.run();
      }) {}

Reactor::~Reactor() { stop(); }

void Reactor::stop() {
  work_.reset();
  context_.stop();
  if (thread_.joinable() && !on_reactor_thread()) thread_.join();
}

}  // namespace exsim::transport
