#include "transport/wire/handshake.h"

#include <cstring>
#include <stdexcept>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include <fmt/format.h>

namespace exsim::transport {
namespace {

constexpr std::string_view kServerLabel = "exsim handshake: server";
constexpr std::string_view kClientLabel = "exsim handshake: client";

template <typename Array>
void fill_random(Array& bytes) {
  if (RAND_bytes(bytes.data(), static_cast<int>(bytes.size())) != 1) {
    throw std::runtime_error("the system's random source failed");
  }
}

}  // namespace

Handshake::Handshake(Side side, std::string token, std::string context)
    : side_(side),
      token_(std::move(token)),
      context_(side == Side::kClient ? std::move(context) : std::string()),
      state_(side == Side::kClient ? State::kAwaitAck : State::kAwaitHello) {
  if (context_.size() > kMaxContext) throw std::invalid_argument("handshake context too long");
  fill_random(own_nonce_);
  if (side_ == Side::kClient) client_nonce_ = own_nonce_;
}

std::optional<Handshake::Frame> Handshake::opening() const {
  if (side_ != Side::kClient) return std::nullopt;
  std::string body(reinterpret_cast<const char*>(own_nonce_.data()), own_nonce_.size());
  body += context_;
  return Frame{FrameType::kHello, std::move(body)};
}

Handshake::Proof Handshake::proof(std::string_view side_label) const {
  // The label, the context with its length (so no two contexts and nonces
  // run together into the same bytes), then both nonces.
  std::string message(side_label);
  message += '\0';
  const auto length = static_cast<std::uint32_t>(context_.size());
  message.append(reinterpret_cast<const char*>(&length), sizeof length);
  message += context_;
  message.append(reinterpret_cast<const char*>(client_nonce_.data()), client_nonce_.size());
  message.append(reinterpret_cast<const char*>(server_nonce_.data()), server_nonce_.size());
  Proof out{};
  unsigned int size = 0;
  if (!HMAC(EVP_sha256(), token_.data(), static_cast<int>(token_.size()),
            reinterpret_cast<const unsigned char*>(message.data()), message.size(), out.data(), &size) ||
      size != out.size()) {
    throw std::runtime_error("HMAC-SHA256 failed");
  }
  return out;
}

Handshake::Outcome Handshake::refuse(std::string reason) {
  state_ = State::kRefused;
  refusal_ = std::move(reason);
  return Outcome::kRefused;
}

Handshake::Outcome Handshake::take(const FrameHeader& header, const char* body, std::optional<Frame>& reply) {
  reply.reset();
  const auto proven = [&](std::string_view label, const char* given) {
    const Proof expected = proof(label);
    return CRYPTO_memcmp(expected.data(), given, expected.size()) == 0;
  };
  switch (state_) {
    case State::kAwaitHello: {
      if (header.type != FrameType::kHello || header.body_length < kNonceBytes ||
          header.body_length > kNonceBytes + kMaxContext) {
        return refuse("expected a hello with a nonce first");
      }
      std::memcpy(client_nonce_.data(), body, kNonceBytes);
      context_.assign(body + kNonceBytes, header.body_length - kNonceBytes);
      server_nonce_ = own_nonce_;
      const Proof mine = proof(kServerLabel);
      std::string ack(reinterpret_cast<const char*>(server_nonce_.data()), server_nonce_.size());
      ack.append(reinterpret_cast<const char*>(mine.data()), mine.size());
      reply = Frame{FrameType::kHelloAck, std::move(ack)};
      state_ = State::kAwaitProof;
      return Outcome::kPending;
    }
    case State::kAwaitAck: {
      if (header.type != FrameType::kHelloAck || header.body_length != kNonceBytes + kProofBytes) {
        return refuse("the listener did not answer the hello with a proof");
      }
      std::memcpy(server_nonce_.data(), body, kNonceBytes);
      if (!proven(kServerLabel, body + kNonceBytes)) {
        return refuse("the listener could not prove it holds the token");
      }
      const Proof mine = proof(kClientLabel);
      reply = Frame{FrameType::kHelloProof, std::string(reinterpret_cast<const char*>(mine.data()), mine.size())};
      state_ = State::kDone;
      return Outcome::kDone;
    }
    case State::kAwaitProof: {
      if (header.type != FrameType::kHelloProof || header.body_length != kProofBytes ||
          !proven(kClientLabel, body)) {
        return refuse("the peer did not prove it holds the token");
      }
      state_ = State::kDone;
      return Outcome::kDone;
    }
    case State::kDone:
      return refuse("a handshake frame after the handshake");
    case State::kRefused:
      return Outcome::kRefused;
  }
  return refuse("unknown handshake state");
}

}  // namespace exsim::transport
