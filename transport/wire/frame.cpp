#include "transport/wire/frame.h"

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

namespace exsim::transport {
namespace {

template <typename T>
T read_at(const char* p) {
  T value;
  std::memcpy(&value, p, sizeof(T));
  return value;
}

}  // namespace

void FrameHeader::encode(char* out) const {
  std::memset(out, 0, kSize);
  std::memcpy(out, &kMagic, 4);
  out[4] = static_cast<char>(kVersion);
  out[5] = static_cast<char>(type);
  std::memcpy(out + 6, &flags, 2);
  std::memcpy(out + 8, &body_length, 4);
  std::memcpy(out + 16, &call_id, 8);
  std::memcpy(out + 24, &send_time_ns, 8);
}

void FrameDecoder::compact() {
  // Drop what has been read, so the buffer holds at most one frame's worth plus
  // what arrived with it.
  if (read_ == 0) return;
  const std::size_t left = buffered();
  if (left > 0) std::memmove(buffer_.data(), buffer_.data() + read_, left);
  buffer_.resize_uninitialized(left);
  read_ = 0;
}

bool FrameDecoder::push(const char* data, std::size_t size) {
  if (failed()) return false;
  compact();
  std::memcpy(buffer_.append(size), data, size);
  return check_header();
}

std::pair<char*, std::size_t> FrameDecoder::prepare() {
  compact();
  // Once the header is known (and checked), the rest of this frame at once.
  const std::size_t want = std::max<std::size_t>(64 * 1024, missing());
  const std::size_t at = buffer_.size();
  buffer_.append(want);  // reserve without zeroing; commit() keeps what was read
  buffer_.resize_uninitialized(at);
  return {buffer_.data() + at, want};
}

std::size_t FrameDecoder::missing() const {
  if (failed() || buffered() < FrameHeader::kSize) return 0;
  const std::size_t frame = FrameHeader::kSize + read_at<std::uint32_t>(buffer_.data() + read_ + 8);
  return frame > buffered() ? frame - buffered() : 0;
}

bool FrameDecoder::commit(std::size_t size) {
  if (failed()) return false;
  buffer_.resize_uninitialized(buffer_.size() + size);
  return check_header();
}

bool FrameDecoder::check_header() {
  if (buffered() < FrameHeader::kSize) return true;
  const char* h = buffer_.data() + read_;
  const auto magic = read_at<std::uint32_t>(h);
  const auto version = static_cast<std::uint8_t>(h[4]);
  const auto type = static_cast<std::uint8_t>(h[5]);
  const auto length = read_at<std::uint32_t>(h + 8);
  if (magic != FrameHeader::kMagic) {
    error_ = fmt::format("bad frame magic {:#010x}", magic);
  } else if (version != FrameHeader::kVersion) {
    error_ = fmt::format("frame version {} (this build speaks {})", version, FrameHeader::kVersion);
  } else if (type < 1 || type > kLastFrameType) {
    error_ = fmt::format("unknown frame type {}", type);
  } else if (length > max_body_) {
    error_ = fmt::format("frame of {} bytes over the limit of {}", length, max_body_);
  } else {
    return true;
  }
  buffer_ = ByteBuffer();  // release the memory: the stream is dead
  read_ = 0;
  return false;
}

std::optional<FrameDecoder::Frame> FrameDecoder::next() {
  if (failed() || buffered() < FrameHeader::kSize) return std::nullopt;
  if (!check_header()) return std::nullopt;
  const char* h = buffer_.data() + read_;
  FrameHeader header;
  header.type = static_cast<FrameType>(h[5]);
  header.flags = read_at<std::uint16_t>(h + 6);
  header.body_length = read_at<std::uint32_t>(h + 8);
  header.call_id = read_at<std::uint64_t>(h + 16);
  header.send_time_ns = read_at<std::int64_t>(h + 24);
  if (buffered() < FrameHeader::kSize + header.body_length) return std::nullopt;
  Frame frame{header, h + FrameHeader::kSize};
  read_ += FrameHeader::kSize + header.body_length;
  return frame;
}

}  // namespace exsim::transport
