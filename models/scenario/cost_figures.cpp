#include "models/scenario/cost_figures.h"

#include <array>
#include <cmath>
#include <limits>
#include <type_traits>

namespace exsim {
namespace {

using R = CostFigure::Reading;
using W = CostFigure::Written;
using S = CostFigure::Summary;

constexpr double kNone = std::numeric_limits<double>::quiet_NaN();

// A field of CostProfile as a double; integers (bytes, threads, cores) round.
template <auto Field>
double get_field(const CostProfile& p) {
  return static_cast<double>(p.*Field);
}
template <auto Field>
void set_field(CostProfile& p, double v) {
  using T = std::remove_cvref_t<decltype(p.*Field)>;
  if constexpr (std::is_integral_v<T>) {
    p.*Field = static_cast<T>(std::llround(v));
  } else {
    p.*Field = v;
  }
}
template <auto Field>
constexpr CostFigure figure(std::string_view key, R reading, W written, S summary, double least, double most) {
  return {key, reading, written, summary, least, most, &get_field<Field>, &set_field<Field>};
}

// The measurable ranges are what no machine can measure beyond: a core does
// not copy memory faster than about 100 GB/s; anything slower than 1 MB/s (or
// 100,000 rows/s, or a microsecond a row for each channel) is a broken run; a
// call costs more than nothing and less than a millisecond of CPU; the loopback
// adds less than 10 ms to a round trip; a thread wakes in less than 10 ms; and a
// call's framing is bytes, not pages.
constexpr std::array kFigures{
    figure<&CostProfile::serialize_bytes_per_s>("serialize_bytes_per_s", R::kRate, W::kAlways, S::kMedian, 1e6, 1e11),
    figure<&CostProfile::deserialize_bytes_per_s>("deserialize_bytes_per_s",
        R::kRate, W::kAlways, S::kMedian, 1e6, 1e11),
    figure<&CostProfile::serialize_row_ns>("serialize_row_ns", R::kNanos, W::kAlways, S::kMedian, 0, 10000),
    figure<&CostProfile::deserialize_row_ns>("deserialize_row_ns", R::kNanos, W::kAlways, S::kMedian, 0, 10000),
    figure<&CostProfile::deserialize_batch_us>("deserialize_batch_us", R::kMicros, W::kAlways, S::kMedian, 0, 1000),
    figure<&CostProfile::lz4_compress_bytes_per_s>("lz4_compress_bytes_per_s",
        R::kRate, W::kAlways, S::kMedian, 1e6, 1e11),
    figure<&CostProfile::lz4_decompress_bytes_per_s>("lz4_decompress_bytes_per_s",
        R::kRate, W::kAlways, S::kMedian, 1e6, 1e11),
    figure<&CostProfile::rpc_cpu_us>("rpc_cpu_us", R::kMicros, W::kAlways, S::kMedian, 0.1, 1000),
    figure<&CostProfile::rpc_cpu_busy_us>("rpc_cpu_busy_us",
        R::kBusyMicros, W::kWhenNonNegative, S::kMedian, 0.1, 1000),
    figure<&CostProfile::rpc_cpu_queued_us>("rpc_cpu_queued_us",
        R::kBusyMicros, W::kWhenNonNegative, S::kMedian, 0.1, 1000),
    figure<&CostProfile::rpc_caller_cpu_us>("rpc_caller_cpu_us", R::kMicros, W::kAlways, S::kMedian, 0, 1000),
    figure<&CostProfile::rpc_latency_us>("rpc_latency_us", R::kMicros, W::kAlways, S::kMedian, 0, 10000),
    // A wake-up's cost has two levels on a development machine, about 4.3 and
    // 6.7 us, which the host's load chooses between for minutes at a time
    // (three calibrations in a row: medians 6.7, 6.7 and 4.3 us); the least
    // repetition is the uncontended wake-up, and the simulator adds contention
    // for the CPU itself.
    figure<&CostProfile::sender_wake_us>("sender_wake_us", R::kMicros, W::kAlways, S::kLeast, 0, 10000),
    figure<&CostProfile::transfer_bytes_per_s>("transfer_bytes_per_s",
        R::kOptionalRate, W::kAlways, S::kMedian, 1e6, 1e11),
    figure<&CostProfile::partition_rows_per_s>("partition_rows_per_s",
        R::kOptionalRate, W::kAlways, S::kMedian, 1e5, 1e10),
    figure<&CostProfile::append_bytes_per_s>("append_bytes_per_s", R::kRate, W::kAlways, S::kMedian, 1e6, 1e11),
    // The cache: what a memory access costs is bounded by nanoseconds, not
    // microseconds, a cache is between 64 KiB and 16 GiB, and a prefetcher
    // follows up to a few hundred streams.
    figure<&CostProfile::cache_bytes>("cache_bytes", R::kCacheBytes, W::kWhenPositive, S::kMedian, 65536, 16e9),
    // The core's own cache is the machine's (sysfs), not a measurement.
    figure<&CostProfile::core_cache_bytes>("core_cache_bytes",
        R::kCacheBytes, W::kAlways, S::kNotMeasured, kNone, kNone),
    figure<&CostProfile::core_miss_byte_ns>("core_miss_byte_ns", R::kNanos, W::kAlways, S::kMedian, 0, 100),
    figure<&CostProfile::prefetch_streams>("prefetch_streams", R::kStreams, W::kWhenPositive, S::kMedian, 0, 4096),
    figure<&CostProfile::prefetched_miss_share>("prefetched_miss_share", R::kShare, W::kAlways, S::kMedian, 0, 1),
    figure<&CostProfile::cache_miss_row_ns>("cache_miss_row_ns", R::kNanos, W::kAlways, S::kMedian, 0, 2000),
    figure<&CostProfile::cache_miss_byte_ns>("cache_miss_byte_ns", R::kNanos, W::kAlways, S::kMedian, 0, 100),
    figure<&CostProfile::transfer_miss_byte_ns>("transfer_miss_byte_ns", R::kNanos, W::kAlways, S::kMedian, 0, 100),
    figure<&CostProfile::decode_miss_byte_ns>("decode_miss_byte_ns", R::kNanos, W::kAlways, S::kMedian, 0, 100),
    // A page fault costs between a few hundred nanoseconds (bare metal) and a
    // few microseconds (a virtual machine's nested page tables): per byte of a
    // 4 KiB page, up to about 1 ns; 10 is a broken run.
    figure<&CostProfile::fresh_memory_byte_ns>("fresh_memory_byte_ns", R::kNanos, W::kAlways, S::kMedian, 0, 10),
    figure<&CostProfile::wire_overhead_bytes>("wire_overhead_bytes", R::kBytes, W::kAlways, S::kMedian, 1, 4096),
    figure<&CostProfile::service_threads>("service_threads",
        R::kCount, W::kWhenPositive, S::kNotMeasured, kNone, kNone),
    figure<&CostProfile::cores>("cores", R::kCores, W::kWhenPositive, S::kNotMeasured, kNone, kNone),
};

}  // namespace

std::span<const CostFigure> cost_figures() { return kFigures; }

const CostFigure* find_cost_figure(std::string_view key) {
  for (const CostFigure& figure : kFigures) {
    if (figure.key == key) return &figure;
  }
  return nullptr;
}

}  // namespace exsim
