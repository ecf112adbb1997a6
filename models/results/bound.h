// What bounded an exchange (spec "Results": bound_by). Each sender thread's
// time is given to what it went to: producing its rows, its own CPU on the
// batches (serializing, LZ4, the calls), or waiting for a call, which is given
// to the part of that call's life the wait covered (its round trip and the
// sender's wake-up, its bytes on the NIC, the receiver's service and work, or
// the receiver holding it back while its consumer drains the queue). Summed
// over the exchange's sender instances, the largest part names the bound.
#ifndef EXSIM_MODELS_RESULTS_BOUND_H_
#define EXSIM_MODELS_RESULTS_BOUND_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace exsim {

enum class Bound : std::uint8_t { kProducer, kSenderCpu, kRoundTrips, kNic, kReceiver, kConsumer };
inline constexpr std::size_t kBounds = 6;

// "producer", "sender_cpu", "round_trips", "nic", "receiver", "consumer".
std::string_view to_string(Bound bound);
// The same in words for tables ("round trips", "sender CPU").
std::string_view in_words(Bound bound);

// Seconds of sender-thread time by what bounded it.
struct TimeByBound {
  std::array<double, kBounds> seconds{};

  double& operator[](Bound b) { return seconds[static_cast<std::size_t>(b)]; }
  double operator[](Bound b) const { return seconds[static_cast<std::size_t>(b)]; }
  double total() const;
  bool empty() const { return total() <= 0; }
  // The largest part (the first of equal ones) and its share of the total.
  Bound largest() const;
  double share(Bound b) const { return total() > 0 ? (*this)[b] / total() : 0; }
  TimeByBound& operator+=(const TimeByBound& other);
};

// What the real exchange times of an exchange, summed over its sender threads
// and calls. A thread cannot tell which call freed it, so its waits (less its
// wake-ups, which are round trips) are given to the parts of every call's life
// in proportion: the imposed round trips; the rest of the network time, which
// is the NICs' as far as the busiest NIC was busy and else the RPC layer's
// CPU (the model's sender CPU: it charges a call's CPU to the sender thread);
// the receiver's time less what it held calls back; and that. The consumers'
// drain after the last end of stream, once per sender, is the consumer's.
struct MeasuredSenderTime {
  double life_s = 0, produce_s = 0, blocked_s = 0, wake_s = 0;  // sender threads
  double network_s = 0, receiver_s = 0, held_s = 0;             // TransmitData calls
  double round_trips_s = 0;  // the calls' imposed RTTs and RPC latency
  double nic_busy = 0;       // the busiest NIC's bytes at its rate over the exchange's wall-clock (0-1)
  double drain_s = 0;        // the longest drain of a receiver after its last end of stream
  int senders = 0;
};
TimeByBound attribute_measured(const MeasuredSenderTime& m);

// "round trips 62%", and the runner-up when it has kRunnerUpShare or more
// ("sender CPU 66%, round trips 15%"): what a bigger buffer or a second RPC in
// flight would take from. Empty when nothing was attributed.
inline constexpr double kRunnerUpShare = 0.1;
std::string describe_bound(const TimeByBound& time);

}  // namespace exsim

#endif  // EXSIM_MODELS_RESULTS_BOUND_H_
