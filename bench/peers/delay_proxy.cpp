#include "delay_proxy.h"

#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <asio.hpp>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace peers {
namespace {

using asio::ip::tcp;
using Clock = std::chrono::steady_clock;

struct Totals {
  double delay_sum_us = 0;
  std::int64_t chunks = 0;
};

// One direction of one connection: reads chunks as they come, and writes each
// on when its delay has passed, one write at a time, in order.
class Direction : public std::enable_shared_from_this<Direction> {
 public:
  Direction(std::shared_ptr<tcp::socket> from, std::shared_ptr<tcp::socket> to, Clock::duration delay, Totals& totals)
      : from_(std::move(from)), to_(std::move(to)), delay_(delay), totals_(totals), timer_(to_->get_executor()) {}

  void read() {
    std::vector<char> buffer = take_buffer();
    auto* data = buffer.data();
    const std::size_t size = buffer.size();
    from_->async_read_some(asio::buffer(data, size), [self = shared_from_this(), buffer = std::move(buffer)](
                                                         const asio::error_code& error, std::size_t n) mutable {
      if (error) {
        self->reading_done_ = true;  // forward what is queued, then end the other side's stream
        if (!self->busy_) self->next();
        return;
      }
      self->queue_.push_back({Clock::now(), n, std::move(buffer)});
      if (!self->busy_) self->next();
      self->read();
    });
  }

 private:
  struct Chunk {
    Clock::time_point arrived;
    std::size_t size;
    std::vector<char> data;
  };

  std::vector<char> take_buffer() {
    if (spare_.empty()) return std::vector<char>(64 * 1024);
    std::vector<char> b = std::move(spare_.back());
    spare_.pop_back();
    return b;
  }

  // Waits for the front chunk's time, then writes it; `busy_` while either.
  // Called only when not busy, or by the wait or write that ends being busy.
  void next() {
    if (queue_.empty()) {
      busy_ = false;
      asio::error_code ignored;
      if (reading_done_) to_->shutdown(tcp::socket::shutdown_send, ignored);
      return;
    }
    busy_ = true;
    const Clock::time_point due = queue_.front().arrived + delay_;
    if (Clock::now() >= due) {
      write_front();
      return;
    }
    timer_.expires_at(due);
    timer_.async_wait([self = shared_from_this()](const asio::error_code& error) {
      if (!error) self->write_front();
    });
  }

  void write_front() {
    Chunk& c = queue_.front();
    totals_.delay_sum_us += std::chrono::duration<double, std::micro>(Clock::now() - c.arrived).count();
    ++totals_.chunks;
    asio::async_write(*to_, asio::buffer(c.data.data(), c.size),
                      [self = shared_from_this()](const asio::error_code& error, std::size_t) {
                        if (error) {
                          asio::error_code ignored;
                          self->from_->close(ignored);
                          return;
                        }
                        self->spare_.push_back(std::move(self->queue_.front().data));
                        self->queue_.pop_front();
                        self->next();
                      });
  }

  std::shared_ptr<tcp::socket> from_, to_;
  Clock::duration delay_;
  Totals& totals_;
  asio::steady_timer timer_;
  std::deque<Chunk> queue_;
  std::vector<std::vector<char>> spare_;
  bool busy_ = false;
  bool reading_done_ = false;
};

class Proxy {
 public:
  Proxy(asio::io_context& io, int upstream_port, Clock::duration delay)
      : io_(io), acceptor_(io, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0)), upstream_port_(upstream_port),
        delay_(delay) {}

  int port() const { return acceptor_.local_endpoint().port(); }
  const Totals& totals() const { return totals_; }

  void accept() {
    acceptor_.async_accept([this](const asio::error_code& error, tcp::socket client) {
      if (error) return;
      auto in = std::make_shared<tcp::socket>(std::move(client));
      auto out = std::make_shared<tcp::socket>(io_);
      out->connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), static_cast<unsigned short>(upstream_port_)));
      in->set_option(tcp::no_delay(true));
      out->set_option(tcp::no_delay(true));
      std::make_shared<Direction>(in, out, delay_, totals_)->read();
      std::make_shared<Direction>(out, in, delay_, totals_)->read();
      accept();
    });
  }

 private:
  asio::io_context& io_;
  tcp::acceptor acceptor_;
  int upstream_port_;
  Clock::duration delay_;
  Totals totals_;
};

[[noreturn]] void serve(int upstream_port, std::int64_t delay_us, int port_fd, int result_fd) {
  try {
    asio::io_context io(1);
    Proxy proxy(io, upstream_port, std::chrono::microseconds(delay_us));
    asio::signal_set stop(io, SIGTERM);
    stop.async_wait([&](const asio::error_code&, int) {
      rusage usage{};
      getrusage(RUSAGE_SELF, &usage);
      const Achieved a{proxy.totals().chunks ? proxy.totals().delay_sum_us / static_cast<double>(proxy.totals().chunks) : 0,
                       proxy.totals().chunks,
                       static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
                           static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) * 1e-6};
      const bool written = write(result_fd, &a, sizeof a) == static_cast<ssize_t>(sizeof a);
      std::_Exit(written ? 0 : 1);
    });
    proxy.accept();
    const int port = proxy.port();
    if (write(port_fd, &port, sizeof port) != static_cast<ssize_t>(sizeof port)) std::_Exit(1);
    io.run();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "delay proxy: %s\n", e.what());
  }
  std::_Exit(1);
}

}  // namespace

DelayProxy start_delay_proxy(int upstream_port, std::int64_t one_way_delay_us) {
  int port_pipe[2], result_pipe[2];
  if (pipe(port_pipe) != 0 || pipe(result_pipe) != 0) throw std::runtime_error("delay proxy: pipe failed");
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("delay proxy: fork failed");
  if (pid == 0) {
    close(port_pipe[0]);
    close(result_pipe[0]);
    serve(upstream_port, one_way_delay_us, port_pipe[1], result_pipe[1]);
  }
  close(port_pipe[1]);
  close(result_pipe[1]);
  DelayProxy proxy{pid, 0, result_pipe[0]};
  const bool reported = read(port_pipe[0], &proxy.port, sizeof proxy.port) == static_cast<ssize_t>(sizeof proxy.port);
  close(port_pipe[0]);
  if (!reported || proxy.port <= 0) {
    kill(pid, SIGKILL);
    waitpid(pid, nullptr, 0);
    close(result_pipe[0]);
    throw std::runtime_error("delay proxy: did not start");
  }
  return proxy;
}

Achieved stop_delay_proxy(const DelayProxy& proxy) {
  kill(proxy.pid, SIGTERM);
  Achieved a;
  const bool got = read(proxy.result, &a, sizeof a) == static_cast<ssize_t>(sizeof a);
  close(proxy.result);
  int status = 0;
  waitpid(proxy.pid, &status, 0);
  if (!got) {
    throw std::runtime_error(WIFSIGNALED(status) ? "delay proxy: ended by signal " + std::to_string(WTERMSIG(status))
                                                 : "delay proxy: exited " + std::to_string(WEXITSTATUS(status)) +
                                                       " without its result");
  }
  return a;
}

}  // namespace peers
