// Bodies of the exchange's frames (docs/wire-format.md): which exchange run,
// sender and receiver instance a call belongs to, and the response.
#ifndef EXSIM_TRANSPORT_RPC_MESSAGES_H_
#define EXSIM_TRANSPORT_RPC_MESSAGES_H_

#include <cstdint>
#include <cstring>

namespace exsim::transport {

// Leads every TransmitData and EndOfStream body.
struct CallAddress {
  static constexpr std::size_t kSize = 16;
  std::uint32_t run = 0;       // exchange run, unique within a scenario run
  std::uint32_t sender = 0;    // sender instance
  std::uint32_t receiver = 0;  // receiver instance
  std::uint32_t reserved = 0;

  void encode(char* out) const { std::memcpy(out, this, kSize); }
  static CallAddress decode(const char* in) {
    CallAddress a;
    std::memcpy(&a, in, kSize);
    return a;
  }
};
static_assert(sizeof(CallAddress) == CallAddress::kSize);

// The body of a Response frame.
struct CallResult {
  static constexpr std::size_t kSize = 16;
  std::uint32_t status = 0;  // 0 accepted; otherwise the call failed (the run fails)
  std::uint32_t reserved = 0;
  std::int64_t receiver_ns = 0;  // from the call's arrival to this response, as Impala reports

  void encode(char* out) const { std::memcpy(out, this, kSize); }
  static CallResult decode(const char* in) {
    CallResult r;
    std::memcpy(&r, in, kSize);
    return r;
  }
};
static_assert(sizeof(CallResult) == CallResult::kSize);

}  // namespace exsim::transport

#endif  // EXSIM_TRANSPORT_RPC_MESSAGES_H_
