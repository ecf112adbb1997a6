// One event-loop thread: an io_context run by its own thread. Connections are
// pinned to one reactor and touched only on its thread; other threads post work
// to it. (Kudu's ReactorThread; Asio's io_context-per-thread pattern.)
#ifndef EXSIM_TRANSPORT_NET_REACTOR_H_
#define EXSIM_TRANSPORT_NET_REACTOR_H_

#include <functional>
#include <thread>

#include <asio/executor_work_guard.hpp>
#include <asio/io_context.hpp>
#include <asio/post.hpp>

namespace exsim::transport {

class Reactor {
 public:
  Reactor();
  ~Reactor();  // stops the loop and joins the thread
  Reactor(const Reactor&) = delete;
  Reactor& operator=(const Reactor&) = delete;

  asio::io_context& context() { return context_; }
  // Runs `fn` on the reactor thread.
  template <typename F>
  void post(F&& fn) {
    asio::post(context_, std::forward<F>(fn));
  }
  bool on_reactor_thread() const { return std::this_thread::get_id() == thread_.get_id(); }
  void stop();

 private:
  asio::io_context context_{1};  // concurrency hint 1: one thread runs it
  asio::executor_work_guard<asio::io_context::executor_type> work_;
  std::thread thread_;
};

}  // namespace exsim::transport

#endif  // EXSIM_TRANSPORT_NET_REACTOR_H_
