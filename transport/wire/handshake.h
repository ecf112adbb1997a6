// Mutual authentication of a connection by challenge and response, without
// the shared secret ever crossing the wire (docs/wire-format.md, "Opening a
// connection"). The side that connects (the client) and the side that accepts
// (the server) each send a fresh 32-byte nonce; each proves it holds the token
// by an HMAC-SHA256, keyed with the token, over both nonces, what the client
// says it is (its context: "control", or the data connection's host) and a
// label naming the side, so a proof cannot be reflected back or replayed on
// another connection. The server proves first: a client sends nothing of
// value (a scenario) to a listener that has not, so an impostor listener
// learns nothing but a nonce. Proofs are compared in constant time.
//
//   client -> server  Hello       nonce_c, context
//   server -> client  HelloAck    nonce_s, proof(server)
//   client -> server  HelloProof  proof(client)
//
// Bytes only, no sockets: each step takes a frame and may give the next to
// send, so the exchange is tested without a network.
#ifndef EXSIM_TRANSPORT_WIRE_HANDSHAKE_H_
#define EXSIM_TRANSPORT_WIRE_HANDSHAKE_H_

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "transport/wire/frame.h"

namespace exsim::transport {

class Handshake {
 public:
  enum class Side { kClient, kServer };
  enum class Outcome { kPending, kDone, kRefused };
  struct Frame {
    FrameType type;
    std::string body;
  };
  static constexpr std::size_t kNonceBytes = 32;
  static constexpr std::size_t kProofBytes = 32;  // SHA-256
  static constexpr std::size_t kMaxContext = 128;
  // Every handshake frame's body fits this: a connection that has not
  // authenticated is held to it (Connection::authenticated raises it after).
  static constexpr std::uint32_t kMaxFrameBody = 256;

  // `context` is the client's: what it says it is, which the server reads back
  // once the client has proved it (context()). A server's is ignored.
  Handshake(Side side, std::string token, std::string context = {});

  // The client's first frame; nullopt for a server (it waits).
  std::optional<Frame> opening() const;
  // Takes the peer's next frame: kDone once the peer has proved it holds the
  // token (a server then has nothing more to send, a client sends `reply`),
  // kRefused with the reason in refusal(), kPending with `reply` to send.
  Outcome take(const FrameHeader& header, const char* body, std::optional<Frame>& reply);

  bool done() const { return state_ == State::kDone; }
  // A server that has answered a hello and waits for the client's proof.
  bool awaiting_proof() const { return state_ == State::kAwaitProof; }
  const std::string& context() const { return context_; }
  const std::string& refusal() const { return refusal_; }

 private:
  enum class State { kAwaitHello, kAwaitAck, kAwaitProof, kDone, kRefused };
  using Nonce = std::array<unsigned char, kNonceBytes>;
  using Proof = std::array<unsigned char, kProofBytes>;

  Proof proof(std::string_view side_label) const;
  Outcome refuse(std::string reason);

  Side side_;
  std::string token_;
  std::string context_;
  Nonce own_nonce_{};
  Nonce client_nonce_{};
  Nonce server_nonce_{};
  State state_;
  std::string refusal_;
};

}  // namespace exsim::transport

#endif  // EXSIM_TRANSPORT_WIRE_HANDSHAKE_H_
