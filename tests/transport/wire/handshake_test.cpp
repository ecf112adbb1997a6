// The handshake by hand, without a network: both sides prove the token, the
// secret never appears in a frame, and every forgery is refused.
#include <doctest/doctest.h>

#include <optional>
#include <string>

#include "transport/wire/handshake.h"

namespace exsim::transport {
namespace {

constexpr const char* kToken = "0123456789abcdef0123456789abcdef";

FrameHeader header_of(const Handshake::Frame& frame) {
  FrameHeader h;
  h.type = frame.type;
  h.body_length = static_cast<std::uint32_t>(frame.body.size());
  return h;
}

Handshake::Outcome deliver(Handshake& to, const Handshake::Frame& frame, std::optional<Handshake::Frame>& reply) {
  return to.take(header_of(frame), frame.body.data(), reply);
}

TEST_CASE("client and server holding the same token both finish, and the server learns what the client is") {
  Handshake client(Handshake::Side::kClient, kToken, "data from host 3");
  Handshake server(Handshake::Side::kServer, kToken);
  CHECK_FALSE(server.opening());
  const auto hello = client.opening();
  REQUIRE(hello);
  CHECK(hello->type == FrameType::kHello);
  std::optional<Handshake::Frame> ack, proof, nothing;
  CHECK(deliver(server, *hello, ack) == Handshake::Outcome::kPending);
  REQUIRE(ack);
  CHECK(ack->type == FrameType::kHelloAck);
  CHECK(deliver(client, *ack, proof) == Handshake::Outcome::kDone);
  REQUIRE(proof);
  CHECK(proof->type == FrameType::kHelloProof);
  CHECK(deliver(server, *proof, nothing) == Handshake::Outcome::kDone);
  CHECK_FALSE(nothing);
  CHECK(client.done());
  CHECK(server.done());
  CHECK(server.context() == "data from host 3");
  // No frame carries the secret, nor anything of it a listener could test a
  // guess against but through the HMAC.
  for (const Handshake::Frame* frame : std::initializer_list<const Handshake::Frame*>{&*hello, &*ack, &*proof}) {
    CHECK(frame->body.find(kToken) == std::string::npos);
    CHECK(frame->body.size() <= Handshake::kMaxFrameBody);
  }
}

TEST_CASE("an impostor listener without the token gets a nonce, and the client sends it nothing more") {
  Handshake client(Handshake::Side::kClient, kToken, "control");
  Handshake impostor(Handshake::Side::kServer, "a guess that is not the token at all");
  std::optional<Handshake::Frame> ack, reply;
  deliver(impostor, *client.opening(), ack);
  REQUIRE(ack);
  CHECK(deliver(client, *ack, reply) == Handshake::Outcome::kRefused);
  CHECK_FALSE(reply);  // no proof of the client's goes to a listener that proved nothing
  CHECK(client.refusal() == "the listener could not prove it holds the token");
}

TEST_CASE("a client without the token is refused by the server") {
  Handshake client(Handshake::Side::kClient, "not the token, but long enough to pass", "control");
  Handshake server(Handshake::Side::kServer, kToken);
  std::optional<Handshake::Frame> ack, proof, reply;
  deliver(server, *client.opening(), ack);
  // The client sees the server's proof fail against its own token, and stops.
  CHECK(deliver(client, *ack, proof) == Handshake::Outcome::kRefused);
  // A client that sends a proof anyway (any 32 bytes) is refused.
  const Handshake::Frame forged{FrameType::kHelloProof, std::string(Handshake::kProofBytes, 'x')};
  CHECK(deliver(server, forged, reply) == Handshake::Outcome::kRefused);
  CHECK_FALSE(server.done());
}

TEST_CASE("a server's proof reflected back, or a proof from another connection, is refused") {
  Handshake server(Handshake::Side::kServer, kToken);
  Handshake client(Handshake::Side::kClient, kToken, "control");
  std::optional<Handshake::Frame> ack, reply;
  deliver(server, *client.opening(), ack);
  // Reflection: the server's own proof sent back as the client's.
  const Handshake::Frame reflected{FrameType::kHelloProof, ack->body.substr(Handshake::kNonceBytes)};
  CHECK(deliver(server, reflected, reply) == Handshake::Outcome::kRefused);

  // Replay: a proof that opened one connection does not open another (new nonces).
  Handshake first_server(Handshake::Side::kServer, kToken), second_server(Handshake::Side::kServer, kToken);
  Handshake first_client(Handshake::Side::kClient, kToken, "control");
  const auto hello = first_client.opening();
  std::optional<Handshake::Frame> first_ack, proof, second_ack;
  deliver(first_server, *hello, first_ack);
  deliver(first_client, *first_ack, proof);
  deliver(second_server, *hello, second_ack);  // the same hello, replayed
  CHECK(deliver(second_server, *proof, reply) == Handshake::Outcome::kRefused);
  CHECK(deliver(first_server, *proof, reply) == Handshake::Outcome::kDone);
}

TEST_CASE("the proof covers the context: a client cannot change what it said it is") {
  Handshake client(Handshake::Side::kClient, kToken, "data from host 1");
  Handshake server(Handshake::Side::kServer, kToken);
  auto hello = *client.opening();
  hello.body.back() = '2';  // "data from host 2", on the way
  std::optional<Handshake::Frame> ack, proof, reply;
  deliver(server, hello, ack);
  CHECK(deliver(client, *ack, proof) == Handshake::Outcome::kRefused);
}

TEST_CASE("frames out of turn or of the wrong size are refused") {
  std::optional<Handshake::Frame> reply;
  Handshake server(Handshake::Side::kServer, kToken);
  CHECK(deliver(server, {FrameType::kControl, "{}"}, reply) == Handshake::Outcome::kRefused);
  CHECK(server.refusal() == "expected a hello with a nonce first");
  Handshake short_hello(Handshake::Side::kServer, kToken);
  CHECK(deliver(short_hello, {FrameType::kHello, std::string(31, 'n')}, reply) == Handshake::Outcome::kRefused);
  Handshake long_context(Handshake::Side::kServer, kToken);
  CHECK(deliver(long_context, {FrameType::kHello, std::string(32 + Handshake::kMaxContext + 1, 'n')}, reply) ==
        Handshake::Outcome::kRefused);
  Handshake client(Handshake::Side::kClient, kToken, "control");
  CHECK(deliver(client, {FrameType::kHelloAck, std::string(63, 'a')}, reply) == Handshake::Outcome::kRefused);
}

}  // namespace
}  // namespace exsim::transport
