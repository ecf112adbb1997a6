// One TCP connection between two agents (one per host pair and direction,
// carrying every channel between them, docs/impala.md §8.1).
//
// Thread rule: every method runs on the connection's reactor thread.
// Outbound: frames wait in a FIFO; exactly one write is outstanding at a time.
// Each write gathers the queued frames (header plus up to three payload pieces
// each, at most 64 buffers) straight from their owners' memory and loops over
// write_some, since Asio's composed write stops at 64 KiB per call. A frame's
// payload must stay valid until its owner is told it was sent.
// Inbound: reads land straight in a FrameDecoder's buffer (the rest of a large
// frame in one wake-up, by the socket's low-water mark); each complete frame
// goes to the handler, its body valid during the call only. A malformed frame or a
// socket error closes the connection and tells the handler why.
#ifndef EXSIM_TRANSPORT_NET_CONNECTION_H_
#define EXSIM_TRANSPORT_NET_CONNECTION_H_

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include <asio/buffer.hpp>
#include <asio/ip/tcp.hpp>
#include <asio/steady_timer.hpp>

#include "transport/net/handler_pool.h"
#include "transport/net/token_bucket.h"
#include "transport/wire/frame.h"

namespace exsim::transport {

class Connection : public std::enable_shared_from_this<Connection> {
 public:
  static constexpr std::size_t kPacketBytes = 1500;  // an Ethernet MTU
  // Pacing waits shorter than this are not taken on a timer (connection.cpp).
  static constexpr std::int64_t kShortestWaitNs = 50'000;
  // A frame with at least this much still to come is read in one wake-up
  // (connection.cpp, read_next).
  static constexpr std::size_t kWholeFrameRead = 256 * 1024;
  // Why a connection closed, told by its kind (a handler decides by it) and
  // in words (for the message that reaches the user).
  struct CloseReason {
    enum class Kind { kByPeer, kByThisSide, kError };
    Kind kind = Kind::kByThisSide;
    std::string text;
  };
  class Handler {
   public:
    virtual void on_frame(Connection& connection, const FrameHeader& header, const char* body) = 0;
    // The frame queued with `cookie` has been handed to the kernel in full.
    virtual void on_sent(Connection& /*connection*/, std::uint64_t /*cookie*/) {}
    // The connection is closed: by the peer, by this side, or on an error.
    virtual void on_closed(Connection& connection, const CloseReason& reason) = 0;

   protected:
    ~Handler() = default;
  };

  static constexpr std::size_t kMaxPayloadPieces = 3;

  Connection(asio::ip::tcp::socket socket, Handler& handler, std::uint32_t max_body_length);
  ~Connection();

  // Sets TCP_NODELAY and keepalive (tcp_liveness.h) and starts reading.
  void start();
  // The peer has authenticated (wire/handshake.h): frames up to
  // `max_body_length` are now taken. Until then the limit is the one the
  // connection was made with, a handshake's, so that a peer that has proved
  // nothing cannot make this side hold more than a few hundred bytes.
  void authenticated(std::uint32_t max_body_length) {
    decoder_.set_max_body_length(max_body_length);
    authenticated_ = true;
  }
  bool is_authenticated() const { return authenticated_; }
  // Paces writes through `pacer` (shared by the host's connections, on the same
  // reactor), at most `chunk` bytes per write: an emulated NIC bandwidth.
  void set_pacer(TokenBucket* pacer, std::size_t chunk = 64 * 1024) {
    pacer_ = pacer;
    pace_chunk_ = chunk;
  }
  // Paces reads through `pacer`: after a read, the next waits until the bytes
  // read have their tokens, counted from when that read was asked for (its
  // bytes arrived meanwhile). A slower inbound NIC, felt by the sender as TCP
  // backpressure. (Distance is emulated by the delay line, never by not reading.)
  void set_read_pacer(TokenBucket* pacer) { read_pacer_ = pacer; }
  // Queues a frame: `header` (its body_length is set from the pieces) and up to
  // three payload pieces. `cookie` comes back through Handler::on_sent.
  void send(FrameHeader header, std::span<const asio::const_buffer> payload, std::uint64_t cookie);
  // Queues a frame with a small body (at most kInlineBody bytes), copied into
  // the frame's slot: for responses and control messages, no lifetime to manage.
  void send_copy(FrameHeader header, const void* body, std::size_t size, std::uint64_t cookie);
  static constexpr std::size_t kInlineBody = 64;
  // Queues a frame whose body the connection keeps until it is sent: control
  // messages of any size (the slot's string keeps its capacity for the next).
  void send_owned(FrameHeader header, const std::string& body, std::uint64_t cookie);
  // Closes it on purpose, for `reason`.
  void close(const std::string& reason) { close(CloseReason{CloseReason::Kind::kByThisSide, reason}); }

  bool open() const { return open_; }
  std::size_t queued_frames() const { return queue_size_; }
  std::uint64_t bytes_written() const { return bytes_written_; }
  std::uint64_t bytes_read() const { return bytes_read_; }
  // How long, at `now_ns`, data written has waited with no acknowledgement
  // from the peer's kernel: 0 when none waits, or an ACK came since the last
  // look. Looked at every tick of a StallWatch (TCP_INFO's segments
  // unacknowledged and time since the last ACK), so exact to a tick.
  std::int64_t unacknowledged_ns(std::int64_t now_ns);
  std::uint64_t write_calls() const { return write_calls_; }

 private:
  struct Outbound {
    std::array<char, FrameHeader::kSize> header;
    std::array<asio::const_buffer, kMaxPayloadPieces> pieces;
    std::array<char, kInlineBody> inline_body;
    std::string owned_body;
    std::size_t piece_count = 0;
    std::size_t total = 0;  // header plus pieces
    std::uint64_t cookie = 0;
  };

  void close(CloseReason reason);
  Outbound& reserve_slot();
  void enqueue(Outbound& out, FrameHeader header, std::uint64_t cookie);
  void write_next();
  void issue_write();
  // Takes `bytes` of tokens; when they are not there yet, calls `then` once
  // they are (on a timer) and returns true. False: go ahead now, as a transfer
  // of at most kPacketBytes, or one due within kShortestWaitNs, always does.
  // `since`: when the bytes may have started through the link (a read's: when it was asked for; < 0: now).
  bool wait_for_tokens(TokenBucket& bucket, std::size_t bytes, asio::steady_timer& timer, void (Connection::*then)(),
                       std::int64_t since = -1);
  void on_write(const asio::error_code& error, std::size_t bytes);
  void read_next();
  // Asks the kernel to report the socket readable only once `bytes` have
  // arrived (SO_RCVLOWAT; 1 restores the default), set only when it changes.
  void set_read_low_water(std::size_t bytes);
  void on_read(const asio::error_code& error, std::size_t bytes);
  Outbound& slot(std::size_t i) { return *queue_[(head_ + i) % queue_.size()]; }

  // Memory for the socket's and timers' operations (at most one read, one
  // write and two waits outstanding): Asio's own per-thread recycling misses
  // when another thread's posts fill its cache, and then every read and write
  // would reach malloc. A member: every operation's handler holds the
  // connection, and Asio frees an operation's memory before the handler.
  HandlerPool op_memory_;
  asio::ip::tcp::socket socket_;
  Handler& handler_;
  FrameDecoder decoder_;  // reads land in its buffer

  // Outbound FIFO as a growable ring of reused slots: no allocation per frame once
  // grown, and a slot never moves while a write refers to it.
  std::vector<std::unique_ptr<Outbound>> queue_;
  std::size_t head_ = 0;
  std::size_t queue_size_ = 0;
  std::size_t front_written_ = 0;  // bytes of the front frame already written
  std::array<asio::const_buffer, 64> gather_;
  std::size_t gather_count_ = 0;
  std::size_t reserved_ = 0;  // bytes of tokens taken for the write in flight
  TokenBucket* pacer_ = nullptr;
  TokenBucket* read_pacer_ = nullptr;
  std::size_t pace_chunk_ = 0;
  asio::steady_timer pace_timer_;
  asio::steady_timer read_timer_;
  std::size_t read_low_water_ = 1;
  std::int64_t read_asked_ns_ = 0;  // when the read in progress was asked for (steady_now_ns)
  bool writing_ = false;
  bool open_ = true;
  bool authenticated_ = false;
  std::uint64_t bytes_written_ = 0;
  std::uint64_t bytes_read_ = 0;
  std::int64_t last_ack_look_ns_ = 0;      // unacknowledged_ns's last look
  std::int64_t unacknowledged_since_ = 0;  // 0: an ACK came since the last look, or nothing waited
  std::uint64_t write_calls_ = 0;
};

}  // namespace exsim::transport

#endif  // EXSIM_TRANSPORT_NET_CONNECTION_H_
