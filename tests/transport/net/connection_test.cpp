// Connections over real loopback TCP: ordered frames of every size through
// gather writes, send completions, and closing on a malformed frame. Every wait
// is bounded.
#include <doctest/doctest.h>

#include <chrono>
#include <future>
#include <mutex>
#include <vector>

#include <asio/ip/tcp.hpp>

#include "models/base/random.h"
#include "transport/net/connection.h"
#include "transport/net/endpoint_text.h"
#include "transport/net/reactor.h"
#include "transport/wire/checksum.h"

namespace exsim::transport {
namespace {

using namespace std::chrono_literals;

struct Recorder final : Connection::Handler {
  std::mutex mutex;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> frames;  // call id, checksum of the body
  std::vector<std::uint64_t> sent;
  std::string closed_reason;
  Connection::CloseReason::Kind closed_kind = Connection::CloseReason::Kind::kByThisSide;
  std::promise<void> got_all, closed;
  std::size_t expect = 0;

  void on_frame(Connection&, const FrameHeader& header, const char* body) override {
    std::lock_guard lock(mutex);
    frames.emplace_back(header.call_id, checksum64(body, header.body_length));
    if (frames.size() == expect) got_all.set_value();  // exactly once: sizes only grow
  }
  void on_sent(Connection&, std::uint64_t cookie) override {
    std::lock_guard lock(mutex);
    sent.push_back(cookie);
  }
  void on_closed(Connection&, const Connection::CloseReason& reason) override {
    std::lock_guard lock(mutex);
    if (!closed_reason.empty()) return;  // a connection reports its close once; be safe anyway
    closed_reason = reason.text;
    closed_kind = reason.kind;
    closed.set_value();
  }
};

// A connected pair of sockets on 127.0.0.1, both on `reactor`.
std::pair<asio::ip::tcp::socket, asio::ip::tcp::socket> socket_pair(Reactor& reactor) {
  asio::ip::tcp::acceptor acceptor(reactor.context(), {asio::ip::make_address("127.0.0.1"), 0});
  asio::ip::tcp::socket client(reactor.context()), server(reactor.context());
  client.connect(acceptor.local_endpoint());
  acceptor.accept(server);
  return {std::move(client), std::move(server)};
}

TEST_CASE("ADDRESS:PORT is read whole: an IP address and a port in range") {
  auto ok = [](std::string_view text, bool any_port) {
    const auto parsed = parse_endpoint(text, any_port);
    REQUIRE_MESSAGE(std::holds_alternative<EndpointText>(parsed), text);
    return std::get<EndpointText>(parsed);
  };
  auto problem = [](std::string_view text, bool any_port) {
    const auto parsed = parse_endpoint(text, any_port);
    return std::holds_alternative<std::string>(parsed) ? std::get<std::string>(parsed) : std::string();
  };
  CHECK(ok("127.0.0.1:7000", false).port == 7000);
  CHECK(ok("127.0.0.1:7000", false).address == "127.0.0.1");
  CHECK(ok("[::1]:65535", false).address == "::1");
  CHECK(ok("::1:80", false).address == "::1");
  CHECK(ok("0.0.0.0:0", true).port == 0);
  CHECK(problem("127.0.0.1:0", false).find("from 1 to 65535") != std::string::npos);
  for (const char* bad : {"127.0.0.1:65536", "127.0.0.1:70000", "127.0.0.1:-1", "127.0.0.1:abc", "127.0.0.1:",
                          "127.0.0.1:123456", "127.0.0.1: 80"}) {
    CHECK_MESSAGE(problem(bad, true).find("the port must be a number") != std::string::npos, bad);
  }
  CHECK(problem("localhost:80", false).find("host names are not resolved") != std::string::npos);
  CHECK(problem(":80", false).find("expected an IP address") != std::string::npos);
  CHECK(problem("127.0.0.1", false) == "expected ADDRESS:PORT");
}

TEST_CASE("frames of every size arrive whole and in order over loopback") {
  Reactor reactor;
  auto [client_socket, server_socket] = socket_pair(reactor);
  Recorder client_side, server_side;
  const std::size_t frames = 120;
  server_side.expect = frames;
  auto client = std::make_shared<Connection>(std::move(client_socket), client_side, 1 << 20);
  auto server = std::make_shared<Connection>(std::move(server_socket), server_side, 8 << 20);

  // Payloads from 0 B to 4 MiB in three pieces; they must outlive their sends.
  Random random(1);
  std::vector<std::vector<char>> payloads(frames);
  std::vector<std::uint64_t> expected(frames);
  for (std::size_t i = 0; i < frames; ++i) {
    const std::size_t size = i % 10 == 0 ? (4u << 20) : random.below(100000);
    payloads[i].resize(size);
    for (auto& c : payloads[i]) c = static_cast<char>(random.next());
    expected[i] = checksum64(payloads[i].data(), size);
  }
  reactor.post([&, client, server] {
    server->start();
    client->start();
    for (std::size_t i = 0; i < frames; ++i) {
      const auto& p = payloads[i];
      const std::size_t a = p.size() / 3, b = p.size() / 2;
      const asio::const_buffer pieces[3] = {asio::buffer(p.data(), a), asio::buffer(p.data() + a, b - a),
                                            asio::buffer(p.data() + b, p.size() - b)};
      FrameHeader h;
      h.type = FrameType::kTransmitData;
      h.call_id = i;
      client->send(h, pieces, 1000 + i);
    }
  });
  REQUIRE(server_side.got_all.get_future().wait_for(20s) == std::future_status::ready);
  std::promise<void> checked;
  reactor.post([&] {
    CHECK(client->queued_frames() == 0);
    // Gather writes: far fewer write calls than frames would need one by one
    // (each 4 MiB frame alone takes several).
    CHECK(client->write_calls() >= 12);
    CHECK(client->bytes_written() > 12u * (4u << 20));
    checked.set_value();
  });
  REQUIRE(checked.get_future().wait_for(5s) == std::future_status::ready);
  {
    // Released before the close below: its on_closed takes the same mutexes on the
    // reactor thread, which stop() joins.
    std::scoped_lock lock(server_side.mutex, client_side.mutex);
    REQUIRE(server_side.frames.size() == frames);
    for (std::size_t i = 0; i < frames; ++i) {
      CHECK(server_side.frames[i].first == i);
      CHECK(server_side.frames[i].second == expected[i]);
    }
    REQUIRE(client_side.sent.size() == frames);
    for (std::size_t i = 0; i < frames; ++i) CHECK(client_side.sent[i] == 1000 + i);
  }
  reactor.post([client, server] {
    client->close("test over");
    server->close("test over");
  });
  reactor.stop();
}

TEST_CASE("a frame over the receiver's limit closes the connection with the reason") {
  Reactor reactor;
  auto [client_socket, server_socket] = socket_pair(reactor);
  Recorder client_side, server_side;
  server_side.expect = 1000;
  auto client = std::make_shared<Connection>(std::move(client_socket), client_side, 1 << 20);
  auto server = std::make_shared<Connection>(std::move(server_socket), server_side, 1 << 20);
  std::vector<char> big(2 << 20, 'x');
  reactor.post([&, client, server] {
    server->start();
    client->start();
    const asio::const_buffer piece = asio::buffer(big);
    client->send(FrameHeader{}, std::span<const asio::const_buffer>(&piece, 1), 1);
  });
  REQUIRE(server_side.closed.get_future().wait_for(10s) == std::future_status::ready);
  CHECK(server_side.closed_reason == "malformed frame from the peer: frame of 2097152 bytes over the limit of 1048576");
  CHECK(server_side.closed_kind == Connection::CloseReason::Kind::kError);
  CHECK(server_side.frames.empty());
  // The sender learns of it too, through a failed write or end of stream.
  CHECK(client_side.closed.get_future().wait_for(10s) == std::future_status::ready);
  reactor.stop();
}

}  // namespace
}  // namespace exsim::transport
