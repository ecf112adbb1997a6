// A growable byte buffer that, unlike std::vector<char>, does not zero the bytes
// it adds: the caller writes them right away (a row, a decoded payload). Grows
// by doubling and keeps its capacity when cleared, as Impala's buffers do.
#ifndef EXSIM_TRANSPORT_WIRE_BYTE_BUFFER_H_
#define EXSIM_TRANSPORT_WIRE_BYTE_BUFFER_H_

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <memory>
#include <string_view>

namespace exsim::transport {

class ByteBuffer {
 public:
  ByteBuffer() = default;
  ByteBuffer(const ByteBuffer& other) { *this = other; }
  ByteBuffer& operator=(const ByteBuffer& other) {
    if (this != &other) {
      resize_uninitialized(other.size_);
      if (size_ > 0) std::memcpy(bytes_.get(), other.bytes_.get(), size_);
    }
    return *this;
  }
  ByteBuffer(ByteBuffer&&) noexcept = default;
  ByteBuffer& operator=(ByteBuffer&&) noexcept = default;

  char* data() { return bytes_.get(); }
  const char* data() const { return bytes_.get(); }
  std::size_t size() const { return size_; }
  std::size_t capacity() const { return capacity_; }
  const char* begin() const { return bytes_.get(); }
  const char* end() const { return bytes_.get() + size_; }
  char& operator[](std::size_t i) { return bytes_[i]; }
  void clear() { size_ = 0; }

  // Sets the size to `n`; new bytes are left as they are (not zeroed).
  void resize_uninitialized(std::size_t n) {
    if (n > capacity_) grow(n);
    size_ = n;
  }
  // Adds `n` bytes at the end and returns where they start.
  char* append(std::size_t n) {
    const std::size_t at = size_;
    resize_uninitialized(size_ + n);
    return bytes_.get() + at;
  }

  friend bool operator==(const ByteBuffer& a, const ByteBuffer& b) {
    return std::string_view(a.data(), a.size()) == std::string_view(b.data(), b.size());
  }

 private:
  void grow(std::size_t n) {
    const std::size_t capacity = std::max({n, 2 * capacity_, std::size_t{256}});
    std::unique_ptr<char[]> bigger(new char[capacity]);  // default-initialized: not zeroed
    if (size_ > 0) std::memcpy(bigger.get(), bytes_.get(), size_);
    bytes_ = std::move(bigger);
    capacity_ = capacity;
  }

  std::unique_ptr<char[]> bytes_;
  std::size_t size_ = 0;
  std::size_t capacity_ = 0;
};

}  // namespace exsim::transport

#endif  // EXSIM_TRANSPORT_WIRE_BYTE_BUFFER_H_
