#include "models/impala/thrift_compact.h"

#include <fmt/format.h>

namespace exsim {

std::pair<int, CompactReader::Type> CompactReader::field() {
  const std::uint8_t header = byte();
  const auto type = static_cast<Type>(header & 0x0f);
  if (type == kStop) return {0, kStop};
  // The high nibble is the id's delta from the last field's; 0: the id follows.
  const int delta = header >> 4;
  last_field_ = delta != 0 ? last_field_ + delta : static_cast<int>(zigzag(varint()));
  return {last_field_, type};
}

std::string CompactReader::string() {
  const auto size = varint();
  if (size > bytes_.size() - at_) throw Undecodable("a string runs past the end of the profile");
  std::string s(bytes_.substr(at_, size));
  at_ += size;
  return s;
}

std::pair<CompactReader::Type, std::uint64_t> CompactReader::list() {
  // The high nibble is the size, or 15 and the size follows.
  const std::uint8_t header = byte();
  const std::uint64_t size = (header >> 4) == 15 ? varint() : header >> 4;
  return {static_cast<Type>(header & 0x0f), size};
}

std::tuple<std::uint64_t, CompactReader::Type, CompactReader::Type> CompactReader::map() {
  const std::uint64_t size = varint();
  if (size == 0) return {0, kStop, kStop};
  const std::uint8_t types = byte();
  return {size, static_cast<Type>(types >> 4), static_cast<Type>(types & 0x0f)};
}

std::vector<std::int64_t> CompactReader::numbers() {
  const auto [element, size] = list();
  std::vector<std::int64_t> values;
  for (std::uint64_t i = 0; i < size; ++i) {
    values.push_back(element == kTrue || element == kFalse ? (byte() == 1 ? 1 : 0) : integer());
  }
  return values;
}

void CompactReader::skip(Type type) {
  switch (type) {
    case kTrue: case kFalse: return;  // a field's value is in its type
    case kByte: byte(); return;
    case kI16: case kI32: case kI64: varint(); return;
    case kDouble: advance(8); return;
    case kBinary: advance(varint()); return;
    case kList: case kSet: {
      const auto [element, size] = list();
      for (std::uint64_t i = 0; i < size; ++i) skip_element(element);
      return;
    }
    case kMap: {
      const auto [size, key, value] = map();
      for (std::uint64_t i = 0; i < size; ++i) skip_element(key), skip_element(value);
      return;
    }
    case kStruct: {
      const int saved = enter();
      for (auto [id, t] = field(); t != kStop; std::tie(id, t) = field()) skip(t);
      leave(saved);
      return;
    }
    default: throw Undecodable(fmt::format("expected a Thrift compact type, found {}", static_cast<int>(type)));
  }
}

void CompactReader::skip_element(Type type) {
  if (type == kTrue || type == kFalse) {
    byte();
  } else {
    skip(type);
  }
}

std::uint8_t CompactReader::byte() {
  if (at_ >= bytes_.size()) throw Undecodable("the profile ends in the middle of a value");
  return static_cast<std::uint8_t>(bytes_[at_++]);
}

void CompactReader::advance(std::uint64_t n) {
  if (n > bytes_.size() - at_) throw Undecodable("a value runs past the end of the profile");
  at_ += n;
}

std::uint64_t CompactReader::varint() {
  std::uint64_t value = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    const std::uint8_t b = byte();
    value |= static_cast<std::uint64_t>(b & 0x7f) << shift;
    if ((b & 0x80) == 0) return value;
  }
  throw Undecodable("a number longer than 64 bits");
}

}  // namespace exsim
