// A fast 64-bit checksum of batch bytes, to catch corruption and mix-ups on the
// way (not an adversary): 8-byte words folded with multiply-xorshift mixing.
#ifndef EXSIM_TRANSPORT_WIRE_CHECKSUM_H_
#define EXSIM_TRANSPORT_WIRE_CHECKSUM_H_

#include <cstddef>
#include <cstdint>

namespace exsim::transport {

// Checksum of `size` bytes at `data`, continuing from `seed` (chain several
// ranges by passing the previous result).
std::uint64_t checksum64(const void* data, std::size_t size, std::uint64_t seed = 0);

}  // namespace exsim::transport

#endif  // EXSIM_TRANSPORT_WIRE_CHECKSUM_H_
