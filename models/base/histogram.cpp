#include "models/base/histogram.h"

#include <bit>

namespace exsim {

int LogHistogram::index_of(std::uint64_t value) {
  if (value < kSub) return static_cast<int>(value);
  int magnitude = 63 - std::countl_zero(value);  // >= kSubBits
  int shift = magnitude - kSubBits;
  int sub = static_cast<int>((value >> shift) & (kSub - 1));
  return (shift + 1) * kSub + sub;
}

double LogHistogram::midpoint_of(int index) {
  if (index < kSub) return index;
  int shift = index / kSub - 1;
  int sub = index % kSub;
  double low = static_cast<double>((static_cast<std::uint64_t>(kSub + sub)) << shift);
  double width = static_cast<double>(std::uint64_t{1} << shift);
  return low + width / 2;
}

void LogHistogram::add(std::int64_t value) {
  ++buckets_[index_of(value < 0 ? 0 : static_cast<std::uint64_t>(value))];
  ++count_;
}

void LogHistogram::merge(const LogHistogram& other) {
  for (std::size_t i = 0; i < buckets_.size(); ++i) buckets_[i] += other.buckets_[i];
  count_ += other.count_;
}

std::vector<std::pair<int, std::int64_t>> LogHistogram::buckets() const {
  std::vector<std::pair<int, std::int64_t>> out;
  for (int i = 0; i < kBuckets; ++i) {
    if (buckets_[i] != 0) out.emplace_back(i, buckets_[i]);
  }
  return out;
}

void LogHistogram::add_bucket(int index, std::int64_t count) {
  if (index < 0 || index >= kBuckets || count <= 0) return;
  buckets_[index] += count;
  count_ += count;
}

double LogHistogram::quantile(double q) const {
  if (count_ == 0) return 0;
  auto rank = static_cast<std::int64_t>(q * static_cast<double>(count_ - 1));
  std::int64_t seen = 0;
  for (int i = 0; i < kBuckets; ++i) {
    seen += buckets_[i];
    if (seen > rank) return midpoint_of(i);
  }
  return midpoint_of(kBuckets - 1);
}

double LogHistogram::mean() const {
  if (count_ == 0) return 0;
  double sum = 0;
  for (int i = 0; i < kBuckets; ++i) {
    if (buckets_[i] != 0) sum += static_cast<double>(buckets_[i]) * midpoint_of(i);
  }
  return sum / static_cast<double>(count_);
}

}  // namespace exsim
