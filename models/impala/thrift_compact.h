// Thrift's compact protocol, read as far as Impala's profile trees need it
// (Thrift's TCompactProtocol): structs field by field, each field the caller
// does not want skipped whatever its type. exsim writes no Thrift.
#ifndef EXSIM_MODELS_IMPALA_THRIFT_COMPACT_H_
#define EXSIM_MODELS_IMPALA_THRIFT_COMPACT_H_

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

namespace exsim {

// Bytes that are not what the reader expected; the caller names the file and line.
struct Undecodable : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class CompactReader {
 public:
  explicit CompactReader(std::string_view bytes) : bytes_(bytes) {}

  enum Type : std::uint8_t { kStop = 0, kTrue = 1, kFalse = 2, kByte = 3, kI16 = 4, kI32 = 5, kI64 = 6,
                             kDouble = 7, kBinary = 8, kList = 9, kSet = 10, kMap = 11, kStruct = 12 };

  // The next field of the struct being read: its id and type; type kStop at its end.
  std::pair<int, Type> field();
  // Reading a nested struct starts its field ids afresh; `leave` restores ours.
  int enter() { return std::exchange(last_field_, 0); }
  void leave(int saved) { last_field_ = saved; }

  std::int64_t integer() { return zigzag(varint()); }
  std::string string();
  // A list's or set's element type and size.
  std::pair<Type, std::uint64_t> list();
  // A map's size, key and value types.
  std::tuple<std::uint64_t, Type, Type> map();
  // A list of integers, or of booleans as 1 and 0.
  std::vector<std::int64_t> numbers();
  void skip(Type type);

 private:
  // An element of a list or map: a boolean takes a byte there, 1 true and 2 false.
  void skip_element(Type type);
  std::uint8_t byte();
  void advance(std::uint64_t n);
  std::uint64_t varint();
  static std::int64_t zigzag(std::uint64_t n) {
    return static_cast<std::int64_t>(n >> 1) ^ -static_cast<std::int64_t>(n & 1);
  }

  std::string_view bytes_;
  std::size_t at_ = 0;
  int last_field_ = 0;
};

// A struct's fields by id, each read by `read` (which returns whether it
// consumed the field) or skipped.
template <typename Read>
void each_field(CompactReader& in, Read read) {
  const int saved = in.enter();
  for (auto [id, type] = in.field(); type != CompactReader::kStop; std::tie(id, type) = in.field()) {
    if (!read(id, type)) in.skip(type);
  }
  in.leave(saved);
}

// A list of structs, each read by `read`.
template <typename Read>
void each_struct(CompactReader& in, Read read) {
  const auto [element, size] = in.list();
  for (std::uint64_t i = 0; i < size; ++i) {
    if (element != CompactReader::kStruct) throw Undecodable("expected a list of structs");
    read();
  }
}

}  // namespace exsim

#endif  // EXSIM_MODELS_IMPALA_THRIFT_COMPACT_H_
