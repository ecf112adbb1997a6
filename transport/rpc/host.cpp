#include "transport/rpc/host.h"

#include <algorithm>
#include <charconv>
#include <optional>
#include <utility>
#include <cstring>
#include <future>
#include <string_view>

#include <asio/bind_allocator.hpp>
#include <asio/connect.hpp>
#include <asio/post.hpp>
#include <fmt/format.h>

#include "transport/net/connect_within.h"
#include "transport/net/steady_clock.h"
#include "transport/net/thread_cpu.h"

namespace exsim::transport {
namespace {

// What a data connection's client says it is: the host it comes from.
constexpr std::string_view kDataContext = "data from host ";

std::string data_context(int host) { return fmt::format("{}{}", kDataContext, host); }

// The host a data connection comes from, or -1 when the context is not one.
int host_of_context(std::string_view context) {
  if (!context.starts_with(kDataContext)) return -1;
  context.remove_prefix(kDataContext.size());
  int host = -1;
  const auto [end, error] = std::from_chars(context.data(), context.data() + context.size(), host);
  return error == std::errc() && end == context.data() + context.size() ? host : -1;
}

// Handshake frames are up to Handshake::kMaxFrameBody, past a copied frame's
// inline room: the connection keeps the body until it is sent.
void send_handshake_frame(Connection& connection, const Handshake::Frame& frame) {
  FrameHeader h;
  h.type = frame.type;
  connection.send_owned(h, frame.body, 0);
}

}  // namespace

// The connection this host opened to one peer: sends calls, gets responses.
class Host::Outbound final : public Connection::Handler, public std::enable_shared_from_this<Outbound> {
 public:
  Outbound(Host& host, int to, std::chrono::nanoseconds one_way)
      : host_(host),
        to_(to),
        responses_(
            host.reactor_.context(), one_way, [this](const FrameHeader& h, const char* b) { deliver(h, b); },
            host.nic_rate_from(to)) {}

  // Opens the connection and starts the handshake; `ready` is told once,
  // on the reactor thread: "" when the peer has proved it belongs to the run,
  // else why not.
  void open(asio::ip::tcp::socket socket, std::function<void(const std::string&)> ready) {
    ready_ = std::move(ready);
    connection_ = std::make_shared<Connection>(std::move(socket), *this, Handshake::kMaxFrameBody);
    // Calls within a host never reach its NIC (the model's rule too): only
    // connections to other hosts are paced.
    if (to_ != host_.options_.index) host_.pace(*connection_);
    connection_->start();
    // What this connection is, which the peer reads once this side has proved itself.
    handshake_.emplace(Handshake::Side::kClient, host_.options_.token, data_context(host_.options_.index));
    send_handshake_frame(*connection_, *handshake_->opening());
  }

  int to() const { return to_; }
  Connection& connection() { return *connection_; }
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

  void on_frame(Connection&, const FrameHeader& header, const char* body) override {
    if (handshake_->done()) {
      responses_.push(header, body);
      return;
    }
    std::optional<Handshake::Frame> reply;
    const Handshake::Outcome outcome = handshake_->take(header, body, reply);
    if (reply) send_handshake_frame(*connection_, *reply);
    if (outcome == Handshake::Outcome::kRefused) {
      tell_ready(fmt::format("host {} refused: {}", to_, handshake_->refusal()));
      connection_->close("refused: " + handshake_->refusal());
    } else if (outcome == Handshake::Outcome::kDone) {
      connection_->authenticated(host_.options_.max_frame_bytes);
      tell_ready("");
    }
  }

  void on_closed(Connection&, const Connection::CloseReason& reason) override {
    if (ready_) {  // before the handshake: the connect fails, not a run
      tell_ready(fmt::format("host {} closed the connection during the handshake: {}", to_, reason.text));
      return;
    }
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

  void tell_ready(const std::string& error) {
    if (auto ready = std::exchange(ready_, nullptr)) ready(error);
  }

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
  std::optional<Handshake> handshake_;
  std::function<void(const std::string&)> ready_;  // until told
  ReceiveDelayLine responses_;
  std::vector<Pending> pending_;
  std::vector<std::uint32_t> free_slots_;
};

// A connection a peer opened to this host: calls in, responses out.
class Host::Inbound final : public Connection::Handler, public std::enable_shared_from_this<Inbound> {
 public:
  explicit Inbound(Host& host) : host_(host) {}

  void open(asio::ip::tcp::socket socket) {
    // Held to a handshake frame until the peer has proved it belongs to the run.
    connection_ = std::make_shared<Connection>(std::move(socket), *this, Handshake::kMaxFrameBody);
    connection_->start();  // paced once the handshake names the peer
    host_.unauthenticated_->admit(connection_);
  }

  void on_frame(Connection&, const FrameHeader& header, const char* body) override {
    if (calls_) {
      calls_->push(header, body);
      return;
    }
    // The handshake: the peer proves it holds the run's token and says which host it is.
    std::optional<Handshake::Frame> reply;
    const Handshake::Outcome outcome = handshake_.take(header, body, reply);
    if (reply) send_handshake_frame(*connection_, *reply);
    if (outcome == Handshake::Outcome::kRefused) {
      connection_->close("refused: " + handshake_.refusal());
      return;
    }
    if (outcome != Handshake::Outcome::kDone) return;
    const int from = host_of_context(handshake_.context());
    if (from < 0 || (host_.options_.hosts > 0 && from >= host_.options_.hosts)) {
      connection_->close(fmt::format("refused: '{}', but the run has {} hosts", handshake_.context(),
                                     host_.options_.hosts));
      return;
    }
    from_ = from;
    connection_->authenticated(host_.options_.max_frame_bytes);
    if (from_ != host_.options_.index) host_.pace(*connection_);
    const auto& delays = host_.options_.one_way_delay;
    const auto delay = static_cast<std::size_t>(from_) < delays.size() ? delays[static_cast<std::size_t>(from_)]
                                                                       : std::chrono::nanoseconds(0);
    calls_ = std::make_unique<ReceiveDelayLine>(
        host_.reactor_.context(), delay, [this](const FrameHeader& h, const char* b) { dispatch(h, b); },
        host_.nic_rate_from(from_));
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
  Connection& connection() { return *connection_; }
  const LogHistogram* achieved() const { return calls_ ? &calls_->achieved_ns() : nullptr; }

 private:
  void dispatch(const FrameHeader& header, const char* body) {
    if (header.type == FrameType::kPing) {  // a probe: answered at once, by this reactor
      host_.respond(connection_, header.call_id, CallResult{});
      return;
    }
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
  Handshake handshake_{Handshake::Side::kServer, host_.options_.token};
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
      acceptor_(reactor_.context(), {asio::ip::make_address(options_.listen_address), 0}),
      unauthenticated_(UnauthenticatedConnections::create(reactor_.context())),
      stalls_(StallWatch::start(reactor_.context(), [this] {
        // Every connection of the run, both ways, on the reactor thread.
        std::vector<StallWatch::Waiting> waiting;
        const std::int64_t now = steady_now_ns();
        for (const auto& out : outbound_) {
          if (const std::int64_t ns = out->connection().unacknowledged_ns(now); ns > 0) {
            waiting.push_back({ns, fmt::format("the connection to host {}", out->to())});
          }
        }
        for (const auto& in : inbound_) {
          if (in->from() < 0) continue;
          if (const std::int64_t ns = in->connection().unacknowledged_ns(now); ns > 0) {
            waiting.push_back({ns, fmt::format("the connection from host {}", in->from())});
          }
        }
        return waiting;
      })) {
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
  std::optional<ConnectFailure> failure;
  auto sockets = connect_within(reactor_.context(), peers, kConnectTimeout, failure);
  if (failure) {
    throw std::runtime_error(fmt::format("host {} cannot connect to host {} at {}:{}: {}", options_.index,
                                         failure->index, peers[failure->index].address().to_string(),
                                         peers[failure->index].port(), failure->reason));
  }
  // Every handshake at once; the first refusal, or the last success, ends the wait.
  struct Wait {
    std::size_t left;
    std::string error;
    std::promise<void> done;
  };
  auto wait = std::make_shared<Wait>();
  wait->left = peers.size();
  auto sockets_held = std::make_shared<std::vector<asio::ip::tcp::socket>>(std::move(sockets));
  reactor_.post([this, wait, sockets_held] {
    for (std::size_t to = 0; to < sockets_held->size(); ++to) {
      const auto& delays = options_.one_way_delay;
      auto out = std::make_shared<Outbound>(*this, static_cast<int>(to),
                                            to < delays.size() ? delays[to] : std::chrono::nanoseconds(0));
      outbound_.push_back(out);
      out->open(std::move((*sockets_held)[to]), [wait](const std::string& error) {
        if (wait->left == 0) return;  // already told
        if (!error.empty() || --wait->left == 0) {
          wait->error = error;
          wait->left = 0;
          wait->done.set_value();
        }
      });
    }
    if (sockets_held->empty()) wait->done.set_value();
  });
  if (wait->done.get_future().wait_for(kConnectTimeout) != std::future_status::ready) {
    throw std::runtime_error(fmt::format("host {}: its peers did not complete the handshake within {} s",
                                         options_.index, kConnectTimeout.count()));
  }
  if (!wait->error.empty()) {
    throw std::runtime_error(fmt::format("host {} cannot connect to its peers: {}", options_.index, wait->error));
  }
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
    stalls_->stop();
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
