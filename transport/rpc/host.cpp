#include "transport/rpc/host.h"

#include <algorithm>
#include <cstring>
#include <future>
#include <string_view>

#include <asio/bind_allocator.hpp>
#include <asio/connect.hpp>
#include <asio/post.hpp>
#include <fmt/format.h>

#include "transport/net/thread_cpu.h"

namespace exsim::transport {

// The connection this host opened to one peer: sends calls, gets responses.
class Host::Outbound final : public Connection::Handler, public std::enable_shared_from_this<Outbound> {
 public:
  Outbound(Host& host, int to, std::chrono::nanoseconds one_way)
      : host_(host),
        to_(to),
        responses_(
            host.reactor_.context(), one_way, [this](const FrameHeader& h, const char* b) { deliver(h, b); },
            host.nic_rate_from(to)) {}

  void open(asio::ip::tcp::socket socket) {
    connection_ = std::make_shared<Connection>(std::move(socket), *this, host_.options_.max_frame_bytes);
    // Calls within a host never reach its NIC (the model's rule too): only
    // connections to other hosts are paced.
    if (to_ != host_.options_.index) host_.pace(*connection_);
    connection_->start();
    // The hello: this host's index, then the run's token.
    const auto from = static_cast<std::uint32_t>(host_.options_.index);
    std::string hello(sizeof from, '\0');
    std::memcpy(hello.data(), &from, sizeof from);
    hello += host_.options_.token;
    FrameHeader h;
    h.type = FrameType::kHello;
    h.send_time_ns = steady_now_ns();
    connection_->send_copy(h, hello.data(), hello.size(), 0);
  }

  int to() const { return to_; }
  // Delays achieved by responses from `to` (send stamp to release).
  const LogHistogram& responses_achieved() const { return responses_.achieved_ns(); }

  void call(FrameType type, std::array<asio::const_buffer, 3> pieces, std::size_t count, CallSink* sink,
            std::uint64_t cookie) {
    // Calls awaiting a response live in a reused slot table: a call id is its
    // slot plus a generation, so answering a call allocates nothing.
    if (free_slots_.empty()) {
      free_slots_.push_back(static_cast<std::uint32_t>(pending_.size()));
      pending_.emplace_back();
    }
    const std::uint32_t index = free_slots_.back();
    free_slots_.pop_back();
    Pending& p = pending_[index];
    ++p.generation;
    FrameHeader h;
    h.type = type;
    h.call_id = (static_cast<std::uint64_t>(p.generation) << 32) | index;
    h.send_time_ns = steady_now_ns();
    p.sink = sink;
    p.cookie = cookie;
    p.issued_ns = h.send_time_ns;
    p.busy = true;
    connection_->send(h, std::span<const asio::const_buffer>(pieces.data(), count), 0);
  }

  void on_frame(Connection&, const FrameHeader& header, const char* body) override { responses_.push(header, body); }

  void on_closed(Connection&, const Connection::CloseReason& reason) override {
    if (!host_.stopped_) {
      host_.fail(fmt::format("connection from host {} to host {} closed: {}", host_.index(), to_, reason.text));
    }
  }

  void close() {
    responses_.cancel();
    if (connection_) connection_->close("host stopped");
  }

 private:
  struct Pending {
    CallSink* sink = nullptr;
    std::uint64_t cookie = 0;
    std::int64_t issued_ns = 0;
    std::uint32_t generation = 0;
    bool busy = false;
  };

  void deliver(const FrameHeader& header, const char* body) {
    const auto index = static_cast<std::uint32_t>(header.call_id);
    const auto generation = static_cast<std::uint32_t>(header.call_id >> 32);
    const bool known = index < pending_.size() && pending_[index].busy && pending_[index].generation == generation;
    if (header.type != FrameType::kResponse || header.body_length < CallResult::kSize || !known) {
      host_.fail(fmt::format("host {} got an unexpected frame (type {}, call {}) from host {}", host_.index(),
                             static_cast<int>(header.type), header.call_id, to_));
      return;
    }
    Pending p = pending_[index];
    pending_[index].busy = false;
    free_slots_.push_back(index);
    const CallResult result = CallResult::decode(body);
    p.sink->on_call_done(p.cookie, result, steady_now_ns() - p.issued_ns - result.receiver_ns);
  }

  Host& host_;
  const int to_;
  std::shared_ptr<Connection> connection_;
  ReceiveDelayLine responses_;
  std::vector<Pending> pending_;
  std::vector<std::uint32_t> free_slots_;
};

// A connection a peer opened to this host: calls in, responses out.
class Host::Inbound final : public Connection::Handler, public std::enable_shared_from_this<Inbound> {
 public:
  explicit Inbound(Host& host) : host_(host) {}

  void open(asio::ip::tcp::socket socket) {
    connection_ = std::make_shared<Connection>(std::move(socket), *this, host_.options_.max_frame_bytes);
    connection_->start();  // paced once the hello names the peer
  }

  void on_frame(Connection&, const FrameHeader& header, const char* body) override {
    if (!calls_) {  // the first frame names the peer and proves it belongs to the run
      const std::string& token = host_.options_.token;
      if (header.type != FrameType::kHello || header.body_length != 4 + token.size() ||
          std::string_view(body + 4, token.size()) != token) {
        connection_->close("expected a hello frame with the run's token first");
        return;
      }
      std::uint32_t from;
      std::memcpy(&from, body, 4);
      if (host_.options_.hosts > 0 && from >= static_cast<std::uint32_t>(host_.options_.hosts)) {
        connection_->close(fmt::format("hello from host {}, but the run has {} hosts", from, host_.options_.hosts));
        return;
      }
      from_ = static_cast<int>(from);
      if (from_ != host_.options_.index) host_.pace(*connection_);
      const auto& delays = host_.options_.one_way_delay;
      const auto delay = from < delays.size() ? delays[from] : std::chrono::nanoseconds(0);
      calls_ = std::make_unique<ReceiveDelayLine>(
          host_.reactor_.context(), delay, [this](const FrameHeader& h, const char* b) { dispatch(h, b); },
          host_.nic_rate_from(from_));
      return;
    }
    calls_->push(header, body);
  }

  void on_closed(Connection&, const Connection::CloseReason& reason) override {
    // Only a peer of the run fails it: a connection that never said its hello
    // (a port scan, a stray client, a wrong token) is just dropped. A peer
    // whose connection breaks before its hello fails the run from its side.
    if (!host_.stopped_ && calls_ && reason.kind != Connection::CloseReason::Kind::kByPeer) {
      host_.fail(fmt::format("connection into host {} closed: {}", host_.index(), reason.text));
    }
    // Forget it, so strays and closed peers do not pile up (on the reactor, later:
    // this object is still running).
    host_.reactor_.post([host = &host_, self = shared_from_this()] {
      if (self->from() >= 0 && self->achieved()) host->closed_calls_achieved_[self->from()].merge(*self->achieved());
      auto& list = host->inbound_;
      list.erase(std::remove(list.begin(), list.end(), self), list.end());
    });
  }

  void close() {
    if (calls_) calls_->cancel();
    if (connection_) connection_->close("host stopped");
  }

  // Which host this connection comes from (-1 before its hello) and the delays achieved.
  int from() const { return from_; }
  const LogHistogram* achieved() const { return calls_ ? &calls_->achieved_ns() : nullptr; }

 private:
  void dispatch(const FrameHeader& header, const char* body) {
    if ((header.type != FrameType::kTransmitData && header.type != FrameType::kEndOfStream) ||
        header.body_length < CallAddress::kSize) {
      host_.fail(fmt::format("host {} got a malformed call (type {})", host_.index(), static_cast<int>(header.type)));
      return;
    }
    const CallAddress address = CallAddress::decode(body);
    CallTarget* target = nullptr;
    {
      std::lock_guard lock(host_.targets_mutex_);
      auto it = host_.targets_.find(address.run);
      if (it != host_.targets_.end()) target = it->second;
    }
    if (!target) {
      host_.fail(fmt::format("host {} got a call for exchange run {}, which it is not running", host_.index(), address.run));
      return;
    }
    target->on_call(connection_, header.call_id, header, body, steady_now_ns());
  }

  Host& host_;
  std::shared_ptr<Connection> connection_;
  std::unique_ptr<ReceiveDelayLine> calls_;
  int from_ = -1;
};

Host::Host(Options options)
    : options_(std::move(options)),
      // Outbound, a burst of 100 us at the rate: a write of n bytes goes out
      // once a NIC of this rate would have sent them, give or take the lateness
      // of the timer it waited on (tens of microseconds), which the burst makes
      // up; an idle link cannot catch up by more. Inbound, a burst of one write:
      // bytes already paced by their sender pass, while several senders into
      // one host are held to the rate.
      nic_(options_.nic_bytes_per_s > 0 ? std::make_unique<TokenBucket>(options_.nic_bytes_per_s,
                                                                        options_.nic_bytes_per_s * 100e-6)
                                        : nullptr),
      nic_in_(options_.nic_bytes_per_s > 0
                  ? std::make_unique<TokenBucket>(options_.nic_bytes_per_s,
                                                  std::max(64.0 * 1024, options_.nic_bytes_per_s * 100e-6))
                  : nullptr),
      acceptor_(reactor_.context(), {asio::ip::make_address(options_.listen_address), 0}) {
  endpoint_ = acceptor_.local_endpoint();
  reactor_.post([this] { accept_next(); });
}

Host::~Host() { stop(); }

void Host::accept_next() {
  acceptor_.async_accept([this](const asio::error_code& error, asio::ip::tcp::socket socket) {
    if (error || stopped_) return;
    auto inbound = std::make_shared<Inbound>(*this);
    inbound->open(std::move(socket));
    inbound_.push_back(inbound);
    accept_next();
  });
}

void Host::connect(const std::vector<asio::ip::tcp::endpoint>& peers) {
  auto done = std::make_shared<std::promise<std::string>>();
  reactor_.post([this, peers, done] {
    try {
      for (std::size_t to = 0; to < peers.size(); ++to) {
        const auto& delays = options_.one_way_delay;
        auto out = std::make_shared<Outbound>(*this, static_cast<int>(to),
                                              to < delays.size() ? delays[to] : std::chrono::nanoseconds(0));
        asio::ip::tcp::socket socket(reactor_.context());
        socket.connect(peers[to]);  // loopback or a LAN peer that is listening: prompt
        out->open(std::move(socket));
        outbound_.push_back(out);
      }
      done->set_value("");
    } catch (const std::exception& e) {
      done->set_value(fmt::format("host {} cannot connect to its peers: {}", options_.index, e.what()));
    }
  });
  auto result = done->get_future();
  if (result.wait_for(std::chrono::seconds(30)) != std::future_status::ready) {
    throw std::runtime_error(fmt::format("host {}: connecting to its peers took over 30 s", options_.index));
  }
  const std::string error = result.get();
  if (!error.empty()) throw std::runtime_error(error);
}

template <typename F>
void Host::post_pooled(F&& fn) {
  asio::post(reactor_.context(), asio::bind_allocator(PoolAllocator<void>(&handlers_), std::forward<F>(fn)));
}

void Host::call(int to, FrameType type, std::array<asio::const_buffer, 3> pieces, std::size_t count, CallSink* sink,
                std::uint64_t cookie) {
  post_pooled([this, to, type, pieces, count, sink, cookie] {
    if (!stopped_) outbound_[static_cast<std::size_t>(to)]->call(type, pieces, count, sink, cookie);
  });
}

void Host::respond(const std::shared_ptr<Connection>& on, std::uint64_t call_id, const CallResult& result) {
  auto send = [on, call_id, result] {
    FrameHeader h;
    h.type = FrameType::kResponse;
    h.call_id = call_id;
    h.send_time_ns = steady_now_ns();
    char body[CallResult::kSize];
    result.encode(body);
    on->send_copy(h, body, sizeof body, 0);
  };
  // A call admitted as it arrives is answered on the reactor thread that read
  // it: at once, not through a posted handler, which Asio allocates for.
  // (A deferred call is answered from a consumer's thread: posted, as calls
  // are, with memory from the host's pool.)
  if (reactor_.on_reactor_thread()) {
    send();
  } else {
    post_pooled(std::move(send));
  }
}

Host::AchievedDelays Host::achieved_delays_ms(Statistic statistic) {
  const auto n = static_cast<std::size_t>(options_.hosts);
  auto result = std::make_shared<AchievedDelays>();
  result->calls_from.assign(n, -1.0);
  result->responses_from.assign(n, -1.0);
  auto done = std::make_shared<std::promise<void>>();
  reactor_.post([this, result, done, statistic] {
    auto record = [statistic](std::vector<double>& into, int host, const LogHistogram& delays) {
      const auto h = static_cast<std::size_t>(host);
      if (host < 0 || h >= into.size() || delays.count() == 0) return;
      into[h] = (statistic == Statistic::kMean ? delays.mean() : delays.quantile(0.5)) * 1e-6;
    };
    std::map<int, LogHistogram> calls = closed_calls_achieved_;
    for (const auto& in : inbound_) {
      if (in->achieved() && in->from() >= 0) calls[in->from()].merge(*in->achieved());
    }
    for (const auto& [from, delays] : calls) record(result->calls_from, from, delays);
    for (const auto& out : outbound_) {
      if (out) record(result->responses_from, out->to(), out->responses_achieved());
    }
    done->set_value();
  });
  if (done->get_future().wait_for(std::chrono::seconds(5)) != std::future_status::ready) return {};
  return *result;
}

double Host::nic_rate_from(int host) const {
  return nic_ && host != options_.index ? options_.nic_bytes_per_s : 0;
}

void Host::pace(Connection& connection) {
  if (nic_) connection.set_pacer(nic_.get());
  if (nic_in_) connection.set_read_pacer(nic_in_.get());
}

std::int64_t Host::reactor_cpu_ns() {
  auto result = std::make_shared<std::promise<std::int64_t>>();
  reactor_.post([result] { result->set_value(thread_cpu_ns()); });
  auto future = result->get_future();
  if (future.wait_for(std::chrono::seconds(5)) != std::future_status::ready) return 0;
  return future.get();
}

void Host::add_target(std::uint32_t run, CallTarget* target) {
  std::lock_guard lock(targets_mutex_);
  targets_[run] = target;
}

void Host::remove_target(std::uint32_t run) {
  {
    std::lock_guard lock(targets_mutex_);
    targets_.erase(run);
  }
  // A dispatch that looked the target up before the erase may still be running
  // on the reactor: wait for the reactor to pass this point.
  if (reactor_.on_reactor_thread() || stopped_) return;
  auto passed = std::make_shared<std::promise<void>>();
  reactor_.post([passed] { passed->set_value(); });
  passed->get_future().wait_for(std::chrono::seconds(30));
}

void Host::fail(const std::string& reason) {
  std::lock_guard lock(failure_mutex_);
  if (on_failure_) on_failure_(reason);
}

void Host::stop() {
  if (stopped_) return;
  std::promise<void> done;
  reactor_.post([&] {
    stopped_ = true;
    asio::error_code ignored;
    acceptor_.close(ignored);
    for (auto& o : outbound_) o->close();
    for (auto& i : inbound_) i->close();
    done.set_value();
  });
  done.get_future().wait_for(std::chrono::seconds(5));
  reactor_.stop();
  std::lock_guard lock(retired_mutex_);
  retired_.clear();  // nothing refers to them once the reactor has stopped
}

}  // namespace exsim::transport
