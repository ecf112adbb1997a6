#include "transport/wire/frame.h"

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

bool FrameDecoder::push(const char* data, std::size_t size) {
  if (failed()) return false;
  // Drop what has been read before growing, so the buffer holds at most one
  // frame's worth plus what arrived with it.
  if (read_ > 0) {
    buffer_.erase(buffer_.begin(), buffer_.begin() + static_cast<std::ptrdiff_t>(read_));
    read_ = 0;
  }
  buffer_.insert(buffer_.end(), data, data + size);
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
  } else if (type < 1 || type > 6) {
    error_ = fmt::format("unknown frame type {}", type);
  } else if (length > max_body_) {
    error_ = fmt::format("frame of {} bytes over the limit of {}", length, max_body_);
  } else {
    return true;
  }
  buffer_.clear();
  buffer_.shrink_to_fit();
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
