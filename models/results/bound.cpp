#include "models/results/bound.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace exsim {
namespace {

struct Names {
  std::string_view key, words;
};
constexpr std::array<Names, kBounds> kNames = {{{"producer", "producer"},
                                                {"sender_cpu", "sender CPU"},
                                                {"round_trips", "round trips"},
                                                {"nic", "NIC"},
                                                {"receiver", "receiver"},
                                                {"consumer", "consumer"}}};

}  // namespace

std::string_view to_string(Bound bound) { return kNames[static_cast<std::size_t>(bound)].key; }
std::string_view in_words(Bound bound) { return kNames[static_cast<std::size_t>(bound)].words; }

double TimeByBound::total() const {
  double sum = 0;
  for (double s : seconds) sum += s;
  return sum;
}

Bound TimeByBound::largest() const {
  std::size_t best = 0;
  for (std::size_t i = 1; i < kBounds; ++i) {
    if (seconds[i] > seconds[best]) best = i;
  }
  return static_cast<Bound>(best);
}

TimeByBound& TimeByBound::operator+=(const TimeByBound& other) {
  for (std::size_t i = 0; i < kBounds; ++i) seconds[i] += other.seconds[i];
  return *this;
}

TimeByBound attribute_measured(const MeasuredSenderTime& m) {
  TimeByBound t;
  const double blocked = std::clamp(m.blocked_s, 0.0, m.life_s);
  const double produce = std::clamp(m.produce_s, 0.0, m.life_s - blocked);
  t[Bound::kProducer] = produce;
  t[Bound::kSenderCpu] = m.life_s - blocked - produce;
  const double wake = std::clamp(m.wake_s, 0.0, blocked);
  const double round_trips = std::clamp(m.round_trips_s, 0.0, m.network_s);
  const double held = std::clamp(m.held_s, 0.0, m.receiver_s);
  const double beyond = m.network_s - round_trips, nic = beyond * std::clamp(m.nic_busy, 0.0, 1.0);
  const double parts[] = {round_trips, nic, beyond - nic, m.receiver_s - held, held};
  const double sum = parts[0] + parts[1] + parts[2] + parts[3] + parts[4];
  const double rest = blocked - wake;
  t[Bound::kRoundTrips] = wake;
  if (sum > 0) {
    t[Bound::kRoundTrips] += rest * parts[0] / sum;
    t[Bound::kNic] = rest * parts[1] / sum;
    t[Bound::kSenderCpu] += rest * parts[2] / sum;
    t[Bound::kReceiver] = rest * parts[3] / sum;
    t[Bound::kConsumer] = rest * parts[4] / sum;
  } else {
    t[Bound::kRoundTrips] += rest;  // waits with no call timed: the end-of-stream round
  }
  t[Bound::kConsumer] += std::max(0.0, m.drain_s) * m.senders;
  return t;
}

std::string describe_bound(const TimeByBound& time) {
  if (time.empty()) return "";
  const Bound first = time.largest();
  std::string text = fmt::format("{} {:.0f}%", in_words(first), std::round(time.share(first) * 100));
  TimeByBound rest = time;
  rest[first] = 0;
  const Bound second = rest.largest();
  if (time.share(second) >= kRunnerUpShare) {
    text += fmt::format(", {} {:.0f}%", in_words(second), std::round(time.share(second) * 100));
  }
  return text;
}

}  // namespace exsim
