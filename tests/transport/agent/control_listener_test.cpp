// An agent's control port on a network it does not own: idle floods and large
// frames before any proof neither keep the coordinator out nor hold the
// agent's memory; a wrong token is refused both ways; a silent peer is named.
#include <doctest/doctest.h>

#include <poll.h>

#include <cerrno>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include <asio/write.hpp>

#include "transport/agent/control_listener.h"
#include "transport/net/connect_within.h"
#include "transport/net/unauthenticated.h"

namespace exsim::transport {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;
constexpr const char* kToken = "00112233445566778899aabbccddeeff";

asio::ip::tcp::endpoint loopback_any() { return {asio::ip::make_address("127.0.0.1"), 0}; }

// Whether the peer has closed `socket` (end of file, or a reset), within `wait`.
bool closed_by_peer(asio::ip::tcp::socket& socket, std::chrono::milliseconds wait) {
  pollfd fd{socket.native_handle(), POLLIN, 0};
  if (poll(&fd, 1, static_cast<int>(wait.count())) != 1) return false;
  char byte;
  asio::error_code error;
  socket.read_some(asio::buffer(&byte, 1), error);
  return error == asio::error::eof || error == asio::error::connection_reset;
}

TEST_CASE("idle connections and huge frames before any proof do not keep the coordinator out") {
  Reactor reactor;
  ControlListener listener(reactor, loopback_any(), kToken);
  asio::io_context io;
  std::vector<asio::ip::tcp::socket> idle;
  for (int i = 0; i < 300; ++i) {
    idle.emplace_back(io);
    idle.back().connect(listener.endpoint());
  }
  // Headers announcing 16 MiB each, bodies following: each closed at its header.
  std::vector<asio::ip::tcp::socket> huge;
  for (int i = 0; i < 8; ++i) {
    huge.emplace_back(io);
    huge.back().connect(listener.endpoint());
    FrameHeader h;
    h.type = FrameType::kHello;
    h.body_length = 16u << 20;
    std::string bytes(FrameHeader::kSize, '\0');
    h.encode(bytes.data());
    bytes += std::string(64 * 1024, 'x');
    asio::error_code ignored;
    asio::write(huge.back(), asio::buffer(bytes), ignored);
  }
  Reactor client_reactor;
  std::optional<ConnectFailure> failure;
  auto sockets = connect_within(client_reactor.context(), {listener.endpoint()}, 2s, failure);
  REQUIRE_FALSE(failure);
  ControlChannel coordinator(client_reactor, std::move(sockets[0]), Handshake::Side::kClient, kToken);
  coordinator.start();
  coordinator.send(R"({"op":"setup"})");
  const auto began = Clock::now();
  auto claim = listener.wait(began + 10s);
  REQUIRE(claim);
  CHECK(claim->first_message == R"({"op":"setup"})");
  CHECK(Clock::now() - began < 3s);
  for (auto& s : huge) CHECK(closed_by_peer(s, 2000ms));
  // Beyond the cap the idle ones were dropped, oldest first; the listener has
  // stopped (one coordinator at a time), so every one is closed by now.
  int closed = 0;
  for (auto& s : idle) closed += closed_by_peer(s, 2000ms) ? 1 : 0;
  CHECK(closed == static_cast<int>(idle.size()));
  // The claimed channel works both ways.
  claim->channel->send(R"({"op":"claimed"})");
  CHECK(coordinator.receive(Clock::now() + 5s) == std::optional<std::string>(R"({"op":"claimed"})"));
}

TEST_CASE("a listener without the token learns nothing, and a coordinator without it is not served") {
  Reactor reactor, client_reactor;
  ControlListener listener(reactor, loopback_any(), "ffeeddccbbaa99887766554433221100");
  std::optional<ConnectFailure> failure;
  auto sockets = connect_within(client_reactor.context(), {listener.endpoint()}, 2s, failure);
  REQUIRE_FALSE(failure);
  ControlChannel coordinator(client_reactor, std::move(sockets[0]), Handshake::Side::kClient, kToken);
  coordinator.start();
  coordinator.send(R"({"op":"setup","scenario":"secret"})");
  // The coordinator refuses the agent's proof and never sends its setup.
  CHECK_FALSE(coordinator.receive(Clock::now() + 5s));
  CHECK(coordinator.error() == "refused: the listener could not prove it holds the token");
  CHECK_FALSE(coordinator.authenticated());
  CHECK_FALSE(listener.wait(Clock::now() + 500ms));
}

TEST_CASE("a silent peer is found within the silence limit and named as silent") {
  Reactor reactor;
  asio::ip::tcp::acceptor acceptor(reactor.context(), loopback_any());
  std::optional<ConnectFailure> failure;
  Reactor client_reactor;
  auto sockets = connect_within(client_reactor.context(), {acceptor.local_endpoint()}, 2s, failure);
  REQUIRE_FALSE(failure);
  // The accepted side never answers: a stopped process whose kernel still holds the connection.
  asio::ip::tcp::socket held = acceptor.accept();
  ControlChannel channel(client_reactor, std::move(sockets[0]), Handshake::Side::kClient, kToken);
  const auto began = Clock::now();
  channel.start();
  CHECK_FALSE(channel.receive(began + ControlChannel::kSilenceLimit + 3s));
  CHECK(channel.closed());
  CHECK(channel.error().find("no handshake within") != std::string::npos);
  CHECK(Clock::now() - began >= ControlChannel::kSilenceLimit);
}

TEST_CASE("connecting gives up within its deadline, naming the endpoint that did not answer") {
  asio::io_context io;
  // A listener that never accepts, its queue full: the kernel drops further SYNs.
  asio::ip::tcp::acceptor full(io);
  full.open(asio::ip::tcp::v4());
  full.bind(loopback_any());
  full.listen(0);
  std::vector<asio::ip::tcp::socket> fillers;
  for (int i = 0; i < 4; ++i) {
    fillers.emplace_back(io);
    std::optional<ConnectFailure> ignored;
    auto s = connect_within(io, {full.local_endpoint()}, 300ms, ignored);
    if (!s.empty()) fillers.push_back(std::move(s[0]));
  }
  asio::ip::tcp::acceptor open_one(io, loopback_any());
  std::optional<ConnectFailure> failure;
  const auto began = Clock::now();
  auto sockets = connect_within(io, {open_one.local_endpoint(), full.local_endpoint()}, 500ms, failure);
  CHECK(Clock::now() - began < 2s);
  REQUIRE(failure);
  CHECK(failure->index == 1);
  CHECK(failure->code == ETIMEDOUT);
  CHECK(failure->reason == "no answer to the connection within 500 ms");
  CHECK(sockets.empty());
  // A closed port is refused at once.
  const auto port = open_one.local_endpoint().port();
  open_one.close();
  connect_within(io, {{asio::ip::make_address("127.0.0.1"), port}}, 2s, failure);
  REQUIRE(failure);
  CHECK(failure->code == ECONNREFUSED);
  CHECK(failure->reason == "Connection refused");
}

}  // namespace
}  // namespace exsim::transport
