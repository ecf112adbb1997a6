// A fixed-size log-linear histogram (HdrHistogram-like: 32 linear sub-buckets
// per power of two, relative error under 3%), so that percentiles of millions
// of samples cost constant memory.
#ifndef EXSIM_MODELS_BASE_HISTOGRAM_H_
#define EXSIM_MODELS_BASE_HISTOGRAM_H_

#include <array>
#include <cstdint>
#include <utility>
#include <vector>

namespace exsim {

class LogHistogram {
 public:
  void add(std::int64_t value);
  void merge(const LogHistogram& other);
  std::int64_t count() const { return count_; }
  // The value below which a fraction q of the samples lie (bucket midpoint); 0 when empty.
  double quantile(double q) const;
  // The mean of the samples as their buckets' midpoints give it (same relative error); 0 when empty.
  double mean() const;
  // Non-empty buckets as (index, count), to send a histogram between processes.
  std::vector<std::pair<int, std::int64_t>> buckets() const;
  void add_bucket(int index, std::int64_t count);  // ignores an index out of range

 private:
  static constexpr int kSubBits = 5;
  static constexpr int kSub = 1 << kSubBits;
  static constexpr int kBuckets = (64 - kSubBits) * kSub + kSub;
  static int index_of(std::uint64_t value);
  static double midpoint_of(int index);
  std::array<std::int64_t, kBuckets> buckets_{};
  std::int64_t count_ = 0;
};

}  // namespace exsim

#endif  // EXSIM_MODELS_BASE_HISTOGRAM_H_
