// A bandwidth cap in the application, as Boost.Beast's simple_rate_policy
// paces a stream (netns with tbf would cap in the kernel, but needs root):
// bytes may leave at `rate` per second on average, in bursts of at most `burst`.
// Callers ask when a write of n bytes may start and wait until then (on a
// timer, never spinning). Pure arithmetic on a caller-given clock, so it is
// deterministic to test.
#ifndef EXSIM_TRANSPORT_NET_TOKEN_BUCKET_H_
#define EXSIM_TRANSPORT_NET_TOKEN_BUCKET_H_

#include <algorithm>
#include <cstdint>

namespace exsim::transport {

class TokenBucket {
 public:
  TokenBucket(double bytes_per_s, double burst_bytes)
      : ns_per_byte_(1e9 / bytes_per_s), burst_ns_(static_cast<std::int64_t>(burst_bytes * 1e9 / bytes_per_s)) {}

  // Takes `bytes` worth of tokens and returns the time (ns, same clock as `now`)
  // at which the write may start: `now` while the burst allows, later once the
  // bucket is in debt. Reservations are served in order, so writes keep theirs.
  // By any time t, the bytes started are at most rate x t + burst.
  std::int64_t reserve(std::int64_t now, std::int64_t bytes) { return reserve_since(now, now, bytes); }

  // The same for bytes that came through at any time from `since` to `now`
  // (a read's, since it was asked for): the link may have carried them from
  // `since`, so a lone sender already held to the rate is not held again. They
  // cannot have started before `now` less their own time at the rate: a read
  // asked for long before its bytes came (an idle connection) gets no credit
  // for the idle spell.
  std::int64_t reserve_since(std::int64_t since, std::int64_t now, std::int64_t bytes) {
    const auto bytes_ns = static_cast<std::int64_t>(static_cast<double>(bytes) * ns_per_byte_);
    // Virtual finish time of all reserved bytes at the nominal rate (GCRA).
    finish_ = std::max(finish_, std::max(since, now - bytes_ns)) + bytes_ns;
    return std::max(now, finish_ - burst_ns_);
  }

  // Gives back tokens reserved for bytes that were not sent after all.
  void refund(std::int64_t bytes) { finish_ -= static_cast<std::int64_t>(static_cast<double>(bytes) * ns_per_byte_); }

 private:
  double ns_per_byte_;
  std::int64_t burst_ns_;
  std::int64_t finish_ = INT64_MIN / 2;
};

}  // namespace exsim::transport

#endif  // EXSIM_TRANSPORT_NET_TOKEN_BUCKET_H_
