#include "transport/net/stall_watch.h"

#include <algorithm>

#include "transport/net/steady_clock.h"

namespace exsim::transport {

std::shared_ptr<StallWatch> StallWatch::start(asio::io_context& context, ConnectionCheck check) {
  auto watch = std::shared_ptr<StallWatch>(new StallWatch(context, std::move(check)));
  watch->arm();
  return watch;
}

void StallWatch::stop() {
  stopped_ = true;
  timer_.cancel();
}

void StallWatch::arm() {
  due_ns_ = steady_now_ns() + std::chrono::nanoseconds(kTick).count();
  timer_.expires_after(kTick);
  timer_.async_wait([weak = weak_from_this()](const asio::error_code& error) {
    if (error) return;
    if (auto self = weak.lock()) self->tick();
  });
}

void StallWatch::tick() {
  // A tick whose wait ended before stop() cancelled it runs after: it must
  // not look at what the owner may be taking down.
  if (stopped_) return;
  const std::int64_t now = steady_now_ns();
  const std::int64_t record_min = std::chrono::nanoseconds(kRecordMin).count();
  if (now - due_ns_ > record_min) record(due_ns_, now - due_ns_, "its process did not run");
  if (check_) {
    for (const Waiting& w : check_()) {
      if (w.waited_ns > record_min) record(now - w.waited_ns, w.waited_ns, w.what + ": data unacknowledged");
    }
  }
  arm();
}

void StallWatch::record(std::int64_t start_ns, std::int64_t length_ns, const std::string& what) {
  std::lock_guard lock(mutex_);
  for (auto it = stalls_.rbegin(); it != stalls_.rend(); ++it) {
    if (it->what == what && start_ns <= it->start_ns + it->length_ns) {
      const std::int64_t end = std::max(it->start_ns + it->length_ns, start_ns + length_ns);
      it->start_ns = std::min(it->start_ns, start_ns);
      it->length_ns = end - it->start_ns;
      return;
    }
  }
  stalls_.push_back({start_ns, length_ns, what});
  if (stalls_.size() > kKept) stalls_.pop_front();
}

std::optional<StallWatch::Stall> StallWatch::longest(std::int64_t from_ns, std::int64_t to_ns) const {
  std::lock_guard lock(mutex_);
  std::optional<Stall> found;
  for (const Stall& s : stalls_) {
    if (s.start_ns > to_ns || s.start_ns + s.length_ns < from_ns) continue;
    if (!found || s.length_ns > found->length_ns) found = s;
  }
  return found;
}

}  // namespace exsim::transport
