// How a socket notices a peer that is gone without a word: a host powered
// off, a link cut, a partition. Without these, Linux keeps an idle connection
// forever and retries unacknowledged data for about 15 minutes (tcp_retries2),
// so a run would hang until its own deadline. Set on every socket exsim opens
// or accepts; a control connection also has heartbeats (control_channel.h),
// which catch what TCP cannot: a peer whose kernel answers while the process
// is stopped.
#ifndef EXSIM_TRANSPORT_NET_TCP_LIVENESS_H_
#define EXSIM_TRANSPORT_NET_TCP_LIVENESS_H_

#include <chrono>

namespace exsim::transport {

// Keepalive probes after 5 s of silence, every 1 s, 5 unanswered close it:
// an idle connection to a vanished peer ends within about 10 s.
inline constexpr std::chrono::seconds kKeepaliveIdle{5};
inline constexpr std::chrono::seconds kKeepaliveInterval{1};
inline constexpr int kKeepaliveProbes = 5;
// Data written and unacknowledged for this long closes the connection
// (TCP_USER_TIMEOUT): a busy connection to a vanished peer ends as soon.
inline constexpr std::chrono::seconds kUnacknowledgedLimit{15};

// Sets the above on socket `fd`; best effort (a failure leaves the kernel's defaults).
void watch_liveness(int fd);

}  // namespace exsim::transport

#endif  // EXSIM_TRANSPORT_NET_TCP_LIVENESS_H_
