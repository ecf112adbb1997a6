// Nanoseconds on the steady clock that every process of one machine shares:
// frame send stamps, delay-line deadlines, token-bucket reservations.
#ifndef EXSIM_TRANSPORT_NET_STEADY_CLOCK_H_
#define EXSIM_TRANSPORT_NET_STEADY_CLOCK_H_

#include <chrono>
#include <cstdint>

namespace exsim::transport {

inline std::int64_t steady_now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace exsim::transport

#endif  // EXSIM_TRANSPORT_NET_STEADY_CLOCK_H_
