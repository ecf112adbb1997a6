#include "models/results/bound.h"

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

std::optional<Bound> bound_from_string(std::string_view name) {
  for (std::size_t i = 0; i < kBounds; ++i) {
    if (kNames[i].key == name) return static_cast<Bound>(i);
  }
  return std::nullopt;
}

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
