#include "models/impala/exchange_counters.h"

#include <algorithm>
#include <functional>
#include <initializer_list>
#include <string_view>

#include "models/impala/profile_titles.h"

namespace exsim {

SenderCounters sender_counters(const ImpalaProfile& profile, const std::vector<const ProfileSection*>& sections,
                               int multiplier) {
  SenderCounters c;
  using Read = std::function<double(const ProfileEntry&)>;
  const Read bytes = [&](const ProfileEntry& e) { return profile.bytes(e); };
  const Read count = [&](const ProfileEntry& e) { return profile.count(e); };
  const Read time = [&](const ProfileEntry& e) { return profile.time_ns(e); };
  std::string found;
  const auto total = [&](std::initializer_list<std::string_view> names, const Read& read) -> std::optional<double> {
    double sum = 0;
    for (const ProfileSection* s : sections) {
      const ProfileEntry* e = first_counter(*s, names);
      if (!e) return std::nullopt;
      found = e->name;
      sum += read(*e);
    }
    return sum * multiplier;
  };
  c.rows = total({"RowsSent", "RowsReturned"}, count);
  c.rows_counter = found;
  c.bytes_sent = total({"TotalBytesSent", "BytesSent"}, bytes);
  c.uncompressed = total({"UncompressedRowBatchSize"}, bytes);
  c.serialize_ns = total({"SerializeBatchTime"}, time);
  c.rpcs = total({"RpcSuccess"}, count);
  c.eos_rpcs = total({"EosSent"}, count);
  // Peak memory: the largest instance's, an aggregated section's "max=".
  double peak = 0;
  bool every = !sections.empty();
  for (const ProfileSection* s : sections) {
    const ProfileEntry* e = s->counter("PeakMemoryUsage");
    if (!e) {
      every = false;
      break;
    }
    peak = std::max(peak, profile.bytes(*e, "max"));
  }
  if (every) c.peak_memory_max = peak;
  // The time in the sender: each section's header total (an aggregated
  // section's, its instances' mean).
  double sink_ns = 0;
  bool every_total = !sections.empty();
  for (const ProfileSection* s : sections) {
    const std::optional<double> ns = s->total_ns(profile.file());
    every_total = every_total && ns.has_value();
    sink_ns += ns.value_or(0);
  }
  if (every_total) c.total_ns = sink_ns * multiplier;
  // Statistics per call: the samples' mean over every section's samples.
  const auto stat = [&](std::string_view name) -> std::optional<ProfileStat> {
    ProfileStat all;
    double sum = 0;
    for (const ProfileSection* s : sections) {
      const ProfileEntry* e = s->counter(name);
      if (!e) return std::nullopt;
      const ProfileStat one = profile.stat(*e);
      sum += one.mean_ns * one.samples;
      all.samples += one.samples;
    }
    if (all.samples <= 0) return std::nullopt;
    all.mean_ns = sum / all.samples;
    return all;
  };
  c.network = stat("RpcNetworkTime");
  c.receiver = stat("RpcRecvrTime");
  return c;
}

ReceiverCounters receiver_counters(const ImpalaProfile& profile,
                                   const std::vector<std::pair<const ProfileSection*, int>>& sections) {
  ReceiverCounters c;
  const auto total = [&](std::string_view name, bool time) -> std::optional<double> {
    double sum = 0;
    for (const auto& [section, multiplier] : sections) {
      const ProfileSection* enqueue = nullptr;
      for (const auto& child : section->children) {
        if (child->title.rfind("Enqueue", 0) == 0) enqueue = child.get();
      }
      const ProfileEntry* e = enqueue ? enqueue->counter(name) : nullptr;
      if (!e) return std::nullopt;
      sum += (time ? profile.time_ns(*e) : profile.count(*e)) * multiplier;
    }
    return sections.empty() ? std::nullopt : std::optional<double>(sum);
  };
  c.deserialize_ns = total("DeserializeRowBatchTime", true);
  c.batches = total("TotalBatchesReceived", false);
  c.deferred = total("TotalRPCsDeferred", false);
  return c;
}

}  // namespace exsim
