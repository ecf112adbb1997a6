#include "transport/net/connection.h"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include <algorithm>
#include <cstring>
#include <utility>

#include <asio/bind_allocator.hpp>
#include <fmt/format.h>

#include "transport/net/steady_clock.h"
#include "transport/net/tcp_liveness.h"

namespace exsim::transport {

Connection::Connection(asio::ip::tcp::socket socket, Handler& handler, std::uint32_t max_body_length)
    : socket_(std::move(socket)),
      handler_(handler),
      decoder_(max_body_length),
      queue_(16),
      pace_timer_(socket_.get_executor()),
      read_timer_(socket_.get_executor()) {
  for (auto& slot : queue_) slot = std::make_unique<Outbound>();
}

Connection::~Connection() = default;

void Connection::start() {
  asio::error_code ignored;
  socket_.set_option(asio::ip::tcp::no_delay(true), ignored);  // Nagle + delayed ACK would stall each call
  watch_liveness(socket_.native_handle());
  read_next();
}

Connection::Outbound& Connection::reserve_slot() {
  if (queue_size_ == queue_.size()) {
    // Grow the ring. Slots are heap objects, so the headers and buffers of the
    // write in flight do not move.
    std::vector<std::unique_ptr<Outbound>> bigger(queue_.size() * 2);
    for (std::size_t i = 0; i < queue_.size(); ++i) bigger[i] = std::move(queue_[(head_ + i) % queue_.size()]);
    for (std::size_t i = queue_.size(); i < bigger.size(); ++i) bigger[i] = std::make_unique<Outbound>();
    queue_.swap(bigger);
    head_ = 0;
  }
  return slot(queue_size_);
}

void Connection::enqueue(Outbound& out, FrameHeader header, std::uint64_t cookie) {
  std::size_t body = 0;
  for (std::size_t i = 0; i < out.piece_count; ++i) body += out.pieces[i].size();
  header.body_length = static_cast<std::uint32_t>(body);
  header.encode(out.header.data());
  out.total = FrameHeader::kSize + body;
  out.cookie = cookie;
  ++queue_size_;
  if (!writing_) write_next();  // write at once when idle, as Kudu does
}

void Connection::send(FrameHeader header, std::span<const asio::const_buffer> payload, std::uint64_t cookie) {
  if (!open_) return;
  Outbound& out = reserve_slot();
  out.piece_count = std::min(payload.size(), kMaxPayloadPieces);
  for (std::size_t i = 0; i < out.piece_count; ++i) out.pieces[i] = payload[i];
  enqueue(out, header, cookie);
}

void Connection::send_copy(FrameHeader header, const void* body, std::size_t size, std::uint64_t cookie) {
  if (!open_) return;
  Outbound& out = reserve_slot();
  size = std::min(size, kInlineBody);
  std::memcpy(out.inline_body.data(), body, size);
  out.pieces[0] = asio::buffer(out.inline_body.data(), size);
  out.piece_count = 1;
  enqueue(out, header, cookie);
}

void Connection::send_owned(FrameHeader header, const std::string& body, std::uint64_t cookie) {
  if (!open_) return;
  Outbound& out = reserve_slot();
  out.owned_body.assign(body);
  out.pieces[0] = asio::buffer(out.owned_body);
  out.piece_count = 1;
  enqueue(out, header, cookie);
}

void Connection::write_next() {
  std::size_t count = 0;
  std::size_t skip = front_written_;
  for (std::size_t i = 0; i < queue_size_ && count < gather_.size(); ++i) {
    Outbound& out = slot(i);
    auto add = [&](asio::const_buffer piece) {
      if (count == gather_.size()) return;
      if (skip >= piece.size()) {
        skip -= piece.size();
        return;
      }
      gather_[count++] = piece + skip;
      skip = 0;
    };
    add(asio::buffer(out.header));
    for (std::size_t p = 0; p < out.piece_count; ++p) add(out.pieces[p]);
  }
  gather_count_ = count;
  writing_ = true;
  if (pacer_) {
    // Cut the write to one chunk and take its tokens; wait when the NIC is busy.
    std::size_t bytes = 0;
    for (std::size_t i = 0; i < gather_count_; ++i) {
      if (bytes + gather_[i].size() >= pace_chunk_) {
        gather_[i] = asio::buffer(gather_[i].data(), pace_chunk_ - bytes);
        bytes = pace_chunk_;
        gather_count_ = i + 1;
        break;
      }
      bytes += gather_[i].size();
    }
    reserved_ = bytes;
    if (wait_for_tokens(*pacer_, bytes, pace_timer_, &Connection::issue_write)) return;
  }
  issue_write();
}

bool Connection::wait_for_tokens(TokenBucket& bucket, std::size_t bytes, asio::steady_timer& timer,
                                 void (Connection::*then)(), std::int64_t since) {
  const std::int64_t now = steady_now_ns();
  const std::int64_t due = bucket.reserve_since(since < 0 ? now : std::min(since, now), now, static_cast<std::int64_t>(bytes));
  // At most one packet (a response, an end-of-stream) takes its tokens but does
  // not queue behind another connection's chunk: on a real NIC it would
  // interleave with that data packet by packet. A wait shorter than a timer's
  // own cost is not taken either: the bytes go now on borrowed tokens, and the
  // next write waits for them, so the rate holds over any two writes (a timer
  // costs about 16 us of CPU and fires about 40 us late on a virtual machine,
  // more than the 13 us a 16 KiB batch takes at 10 Gbit/s).
  if (due <= now + kShortestWaitNs || bytes <= kPacketBytes) return false;
  timer.expires_at(std::chrono::steady_clock::time_point(std::chrono::nanoseconds(due)));
  timer.async_wait(asio::bind_allocator(PoolAllocator<void>(&op_memory_),
                                        [self = shared_from_this(), then](const asio::error_code& error) {
                                          if (!error && self->open_) ((*self).*then)();
                                        }));
  return true;
}

void Connection::issue_write() {
  ++write_calls_;
  socket_.async_write_some(std::span<const asio::const_buffer>(gather_.data(), gather_count_),
                           asio::bind_allocator(PoolAllocator<void>(&op_memory_),
                                                [self = shared_from_this()](const asio::error_code& error, std::size_t bytes) {
                                                  self->on_write(error, bytes);
                                                }));
}

void Connection::on_write(const asio::error_code& error, std::size_t bytes) {
  writing_ = false;
  if (!open_) return;  // closed meanwhile: its handler may be gone
  if (error) {
    close(CloseReason{CloseReason::Kind::kError, fmt::format("write failed: {}", error.message())});
    return;
  }
  bytes_written_ += bytes;
  front_written_ += bytes;
  if (pacer_ && bytes < reserved_) pacer_->refund(static_cast<std::int64_t>(reserved_ - bytes));
  while (queue_size_ > 0 && front_written_ >= slot(0).total) {
    front_written_ -= slot(0).total;
    const std::uint64_t cookie = slot(0).cookie;
    head_ = (head_ + 1) % queue_.size();
    --queue_size_;
    handler_.on_sent(*this, cookie);
  }
  if (queue_size_ > 0 && open_ && !writing_) write_next();
}

void Connection::read_next() {
  // Straight into the decoder's buffer: a whole large frame in one read, no copy.
  // While a large frame is arriving, the reactor is woken once for the rest of
  // it rather than for every segment the kernel has (a 1 MiB batch woke it about
  // four times on loopback): each wake-up is a task switch, the dearest thing on
  // a busy host. Small frames keep the default, so a response is read at once.
  std::size_t mark = decoder_.missing();
  if (mark >= kWholeFrameRead) {
    // At most a quarter of the receive buffer as it is: Linux grows the buffer
    // for a mark beyond it and then clamps the TCP window to the mark, which
    // would hold a long link's window there. Within it, autotuning is untouched.
    asio::socket_base::receive_buffer_size buffer;
    asio::error_code error;
    socket_.get_option(buffer, error);
    mark = error ? 1 : std::min(mark, static_cast<std::size_t>(buffer.value()) / 4);
  }
  set_read_low_water(mark >= kWholeFrameRead ? mark : 1);
  const auto [where, room] = decoder_.prepare();
  if (read_pacer_) read_asked_ns_ = steady_now_ns();
  socket_.async_read_some(asio::buffer(where, room),
                          asio::bind_allocator(PoolAllocator<void>(&op_memory_),
                                               [self = shared_from_this()](const asio::error_code& error, std::size_t bytes) {
                                                 self->on_read(error, bytes);
                                               }));
}

void Connection::on_read(const asio::error_code& error, std::size_t bytes) {
  if (!open_) return;
  if (error) {
    close(error == asio::error::eof
              ? CloseReason{CloseReason::Kind::kByPeer, "closed by the peer"}
              : CloseReason{CloseReason::Kind::kError, fmt::format("read failed: {}", error.message())});
    return;
  }
  bytes_read_ += bytes;
  if (!decoder_.commit(bytes)) {
    close(CloseReason{CloseReason::Kind::kError, fmt::format("malformed frame from the peer: {}", decoder_.error())});
    return;
  }
  while (auto frame = decoder_.next()) {
    handler_.on_frame(*this, frame->header, frame->body);
    if (!open_) return;
  }
  if (decoder_.failed()) {  // a bad header found while taking frames out
    close(CloseReason{CloseReason::Kind::kError, fmt::format("malformed frame from the peer: {}", decoder_.error())});
    return;
  }
  // Bytes of one read were counted as arriving at once, at the read, so a read
  // of a whole large frame (SO_RCVLOWAT) that a lone paced sender had taken 8 ms
  // to send then waited as long again: while TCP's window was too small for the
  // next frame to arrive meanwhile, one direction of a run went at 62% of the
  // rate (about one run in seven on loopback).
  if (read_pacer_ && wait_for_tokens(*read_pacer_, bytes, read_timer_, &Connection::read_next, read_asked_ns_)) return;
  read_next();
}

void Connection::set_read_low_water(std::size_t bytes) {
  if (bytes == read_low_water_) return;
  // The kernel caps the mark at half the largest receive buffer, and wakes a
  // reader anyway when the buffer fills, so no mark can stall a frame.
  asio::error_code ignored;
  socket_.set_option(asio::socket_base::receive_low_watermark(static_cast<int>(bytes)), ignored);
  read_low_water_ = bytes;
}

std::int64_t Connection::unacknowledged_ns(std::int64_t now_ns) {
  tcp_info info{};
  socklen_t size = sizeof info;
  if (!open_ || getsockopt(socket_.native_handle(), IPPROTO_TCP, TCP_INFO, &info, &size) != 0) return 0;
  const std::int64_t previous_look = std::exchange(last_ack_look_ns_, now_ns);
  // Data waits, and no ACK has come since the last look (the kernel's time
  // since the last ACK covers the whole interval): the wait began by then.
  const bool no_ack_since = static_cast<std::int64_t>(info.tcpi_last_ack_recv) * 1'000'000 >= now_ns - previous_look;
  if (info.tcpi_unacked == 0 || previous_look == 0 || !no_ack_since) {
    unacknowledged_since_ = 0;
    return 0;
  }
  if (unacknowledged_since_ == 0) unacknowledged_since_ = previous_look;
  // A long path's round trip is not a stall: four smoothed RTTs pass first.
  const std::int64_t waited = now_ns - unacknowledged_since_;
  return waited > 4 * static_cast<std::int64_t>(info.tcpi_rtt) * 1000 ? waited : 0;
}

void Connection::close(CloseReason reason) {
  if (!open_) return;
  open_ = false;
  asio::error_code ignored;
  pace_timer_.cancel();
  read_timer_.cancel();
  socket_.shutdown(asio::ip::tcp::socket::shutdown_both, ignored);
  socket_.close(ignored);
  handler_.on_closed(*this, reason);
}

}  // namespace exsim::transport
