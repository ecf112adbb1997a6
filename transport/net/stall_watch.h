// Finds the stalls that make a measurement not one of the exchange: a spell
// in which a process did not run (stopped, as by SIGSTOP, or starved), or a
// connection's data went unacknowledged (a link down, a host cut off). Either
// stretches a run's wall-clock with no cause the model knows; a run that
// had one is unsteady (models/results/results.h, kUnsteadyStallS), and
// `validate` sets it aside rather than judge the model against it.
//
// It ticks on a reactor every kTick. A tick late by more than kRecordMin means
// the reactor's thread, and as a rule its whole process, did not run that long
// (a loaded 2-core machine delays a thread by tens of milliseconds). At each
// tick a check given by the owner reports each connection whose data has
// waited with no acknowledgement (Connection::unacknowledged_ns), which is neither backpressure nor a slow
// peer: the peer's kernel acknowledges what it receives whether or not its
// process reads it. Stalls are kept as intervals, so a run asks for those
// that overlap its own span.
#ifndef EXSIM_TRANSPORT_NET_STALL_WATCH_H_
#define EXSIM_TRANSPORT_NET_STALL_WATCH_H_

#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <asio/io_context.hpp>
#include <asio/steady_timer.hpp>

namespace exsim::transport {

class StallWatch : public std::enable_shared_from_this<StallWatch> {
 public:
  static constexpr std::chrono::milliseconds kTick{100};
  static constexpr std::chrono::milliseconds kRecordMin{200};

  struct Stall {
    std::int64_t start_ns = 0;  // steady_now_ns
    std::int64_t length_ns = 0;
    std::string what;
  };
  // Each connection's stall now: how long its oldest unacknowledged data has
  // waited, and what to call it ("the connection to host 2").
  struct Waiting {
    std::int64_t waited_ns = 0;
    std::string what;
  };
  using ConnectionCheck = std::function<std::vector<Waiting>()>;

  // Starts ticking on `context`'s thread; `check`, if given, runs there too.
  static std::shared_ptr<StallWatch> start(asio::io_context& context, ConnectionCheck check = {});
  // On the context's thread: no tick, and no check, runs after it.
  void stop();

  // The longest stall overlapping [from_ns, to_ns]; nullopt when none. Any thread.
  std::optional<Stall> longest(std::int64_t from_ns, std::int64_t to_ns) const;

 private:
  StallWatch(asio::io_context& context, ConnectionCheck check) : timer_(context), check_(std::move(check)) {}
  void arm();
  void tick();
  // Adds or extends (the same `what`, overlapping) a stall.
  void record(std::int64_t start_ns, std::int64_t length_ns, const std::string& what);

  asio::steady_timer timer_;
  ConnectionCheck check_;
  std::int64_t due_ns_ = 0;
  bool stopped_ = false;  // the context's thread
  mutable std::mutex mutex_;
  std::deque<Stall> stalls_;  // the last kKept, oldest first
  static constexpr std::size_t kKept = 1000;
};

}  // namespace exsim::transport

#endif  // EXSIM_TRANSPORT_NET_STALL_WATCH_H_
