// Frames on a transport connection (docs/wire-format.md): a fixed 32-byte
// header, then `body_length` bytes. The decoder checks a frame's length against
// its limit before buffering any of the body, so a peer cannot make it allocate
// more than the limit, and reports the first malformed frame: the connection is
// then closed. Bytes only: no sockets here.
#ifndef EXSIM_TRANSPORT_WIRE_FRAME_H_
#define EXSIM_TRANSPORT_WIRE_FRAME_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "transport/wire/byte_buffer.h"

namespace exsim::transport {

enum class FrameType : std::uint8_t {
  kHello = 1,         // opens a connection: the client's nonce (wire/handshake.h)
  kHelloAck = 2,      // the server's nonce and proof
  kTransmitData = 3,  // a row batch for one channel
  kResponse = 4,      // answers a call: status and the receiver's time
  kEndOfStream = 5,
  kControl = 6,       // coordinator <-> agent
  kHelloProof = 7,    // the client's proof: the connection is authenticated
  kHeartbeat = 8,     // a control connection's sign of life, every kHeartbeatPeriod
  kPing = 9,          // a data call answered at once, whatever its body: probes a path (rpc/peer_probe.h)
};
inline constexpr std::uint8_t kLastFrameType = 9;

struct FrameHeader {
  static constexpr std::size_t kSize = 32;
  static constexpr std::uint32_t kMagic = 0x52465845;  // "EXFR"
  static constexpr std::uint8_t kVersion = 1;

  FrameType type = FrameType::kControl;
  std::uint16_t flags = 0;
  std::uint32_t body_length = 0;
  std::uint64_t call_id = 0;
  std::int64_t send_time_ns = 0;  // sender's steady clock, for the receive-side delay line

  void encode(char* out) const;
};

class FrameDecoder {
 public:
  struct Frame {
    FrameHeader header;
    const char* body;  // valid until the next push()
  };

  explicit FrameDecoder(std::uint32_t max_body_length) : max_body_(max_body_length) {}
  // A new limit for frames whose header is not read yet (a connection that
  // has authenticated takes the full limit).
  void set_max_body_length(std::uint32_t max_body_length) { max_body_ = max_body_length; }

  // Adds received bytes. Returns false once the stream is malformed (see error()).
  bool push(const char* data, std::size_t size);
  // Zero-copy receive: where the next bytes may be read into (at least 1 byte;
  // the rest of the current frame when its header is known, else up to 64 KiB),
  // then commit() the bytes actually read. Returns false from commit() as push() does.
  std::pair<char*, std::size_t> prepare();
  bool commit(std::size_t size);
  // The next complete frame, if any; nullopt when more bytes are needed or after an error.
  std::optional<Frame> next();

  // Bytes still to come before the frame being received is complete: 0 when no
  // frame's header is buffered yet, or a complete frame waits to be taken.
  std::size_t missing() const;

  bool failed() const { return !error_.empty(); }
  const std::string& error() const { return error_; }
  std::size_t buffered() const { return buffer_.size() - read_; }
  std::size_t capacity() const { return buffer_.capacity(); }

 private:
  bool check_header();

  void compact();

  std::uint32_t max_body_;
  ByteBuffer buffer_;
  std::size_t read_ = 0;  // start of the unread bytes in buffer_
  std::string error_;
};

}  // namespace exsim::transport

#endif  // EXSIM_TRANSPORT_WIRE_FRAME_H_
