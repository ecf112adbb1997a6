// Splits Impala's row-batch serialization benchmark into serialization and LZ4.
//
// The reference profile takes its serialization and deserialization rates from
// be/src/benchmarks/row-batch-serialize-benchmark.cc (numbers from IMPALA-6684,
// e327a2875, a Xeon Platinum 8375C). Those times include LZ4: the batch is
// compressed, and kept compressed when that is smaller. Whether LZ4 is a small or
// a large part of them decides what serialization alone costs, and the benchmark
// does not say. This program answers it by measurement:
//
// 1. It rebuilds the benchmark's three batches byte for byte as Impala's baseline
//    serializer lays them out: 1024 rows of one 17-byte tuple (a packed 12-byte
//    StringValue {ptr, len}, an int, a null byte; slots by size, null bytes last)
//    with strings of 0-9 random bytes deep-copied after each tuple and their
//    pointers made offsets; the rows from glibc's rand() seeded 12345, as
//    FillBatch makes them: no duplicates, runs of 5 equal rows, and a cycle of 204.
//    Same bytes, same rows: the three differ only in how well LZ4 compresses them.
// 2. It times LZ4 (LZ4_compress_default, as Impala's Lz4Compressor calls it) and
//    LZ4_decompress_safe on each batch here.
// 3. Impala's published times are t = S + c * L: S what serializing costs there,
//    the same for all three (the same rows copied), and c how much slower LZ4 ran
//    there than here. Three batches give three equations for two unknowns: every
//    pair, and the least-squares fit of all three, are printed, and S gives the
//    per-byte serialization rate.
// Deserialization is not split: the benchmark deserializes its duplicate batches
// as deduplicated (fewer bytes), so its three times differ in more than LZ4. The
// decompression time here is printed beside Impala's deserialization time.
//
// It prints numbers and asserts nothing (`make bench`).
#include <lz4.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

constexpr int kRows = 1024;
constexpr int kTupleBytes = 17;  // StringValue (12, packed since IMPALA-7367) + int (4) + null byte
constexpr int kMaxStringLen = 10;

struct Variant {
  const char* name;
  int repeats;  // FillBatch's `repeats`: runs of equal rows
  int cycle;    // FillBatch's `cycle`: rows repeating those `cycle` back (0: none)
  double serialize_per_ms;    // the benchmark's 50th percentile, "_base" rows
  double deserialize_per_ms;  // (batches per millisecond)
};

// row-batch-serialize-benchmark.cc as of e327a2875 (IMPALA-6684), lines 49-76.
constexpr Variant kVariants[] = {
    {"no dups", 1, 0, 18.8, 76.6},
    {"adjacent dups", 5, 0, 28.4, 128.0},
    {"dups, cycle 204", 1, kRows / 5, 20.9, 128.0},
};

// The serialized tuple data of one batch, as RowBatchSerializeBaseline::SerializeInternal
// writes it (strings longer than zero follow their tuple; the tuple's pointer becomes
// the string's offset in the data).
std::string serialized_batch(const Variant& v) {
  struct Row {
    std::int32_t value;
    std::string text;
  };
  std::srand(12345);
  const int cycle = v.cycle > 0 ? v.cycle : kRows;
  std::vector<Row> rows;
  rows.reserve(kRows);
  for (int i = 0; i < kRows; ++i) {
    if (i >= cycle) {
      rows.push_back(rows[static_cast<std::size_t>(i - cycle)]);
    } else if (i % v.repeats == 0) {
      Row row{std::rand(), {}};
      const int length = std::rand() % kMaxStringLen;
      for (int j = 0; j < length; ++j) row.text.push_back(static_cast<char>(static_cast<char>(std::rand()) % 256));
      rows.push_back(row);
    } else {
      rows.push_back(rows.back());
    }
  }
  std::string data;
  for (const Row& row : rows) {
    char tuple[kTupleBytes] = {};
    const std::uint64_t offset = row.text.empty() ? 0 : data.size() + kTupleBytes;
    const auto length = static_cast<std::uint32_t>(row.text.size());
    std::memcpy(tuple, &offset, 8);
    std::memcpy(tuple + 8, &length, 4);
    std::memcpy(tuple + 12, &row.value, 4);
    data.append(tuple, kTupleBytes);
    data += row.text;
  }
  return data;
}

// Median microseconds per call of `work` over 21 rounds.
template <typename Work>
double median_us(Work work) {
  std::vector<double> rounds;
  for (int r = 0; r < 21; ++r) {
    constexpr int kCalls = 2000;
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < kCalls; ++i) work();
    rounds.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count() /
                     kCalls);
  }
  std::sort(rounds.begin(), rounds.end());
  return rounds[rounds.size() / 2];
}

struct Split {
  double fixed_us;  // S: what the benchmark spends beside LZ4, per batch
  double factor;    // c: LZ4 there over LZ4 here
};

Split solve_pair(double t1, double l1, double t2, double l2) {
  const double c = (t1 - t2) / (l1 - l2);
  return {t1 - c * l1, c};
}

Split least_squares(const std::vector<double>& t, const std::vector<double>& l) {
  double mean_t = 0, mean_l = 0;
  const auto n = static_cast<double>(t.size());
  for (std::size_t i = 0; i < t.size(); ++i) mean_t += t[i] / n, mean_l += l[i] / n;
  double num = 0, den = 0;
  for (std::size_t i = 0; i < t.size(); ++i) {
    num += (l[i] - mean_l) * (t[i] - mean_t);
    den += (l[i] - mean_l) * (l[i] - mean_l);
  }
  const double c = num / den;
  return {mean_t - c * mean_l, c};
}

// Serialization's split, from every pair of batches and from all three together.
void report_split(const std::vector<double>& published_us, const std::vector<double>& lz4_here_us, double batch_bytes) {
  std::printf("\nserialization: t = S + c x (LZ4 compress here), S per batch of %.0f B\n", batch_bytes);
  std::printf("  %-26s %8s %8s %10s\n", "from", "S (us)", "c", "S as B/s");
  auto line = [&](const char* from, Split s) {
    if (s.fixed_us > 0) {
      std::printf("  %-26s %8.2f %8.2f %8.2f GB/s\n", from, s.fixed_us, s.factor, batch_bytes / s.fixed_us / 1e3);
    } else {
      std::printf("  %-26s %8.2f %8.2f %10s\n", from, s.fixed_us, s.factor, "(none)");
    }
  };
  const char* names[] = {"no dups + adjacent dups", "no dups + cycle", "adjacent dups + cycle"};
  const int pairs[][2] = {{0, 1}, {0, 2}, {1, 2}};
  for (int p = 0; p < 3; ++p) {
    const int a = pairs[p][0], b = pairs[p][1];
    if (lz4_here_us[a] == lz4_here_us[b]) continue;
    line(names[p], solve_pair(published_us[a], lz4_here_us[a], published_us[b], lz4_here_us[b]));
  }
  line("least squares, all three", least_squares(published_us, lz4_here_us));
}

}  // namespace

int main() {
  std::printf("Impala's row-batch serialization benchmark (e327a2875, Xeon Platinum 8375C) split into\n"
              "serialization and LZ4, from LZ4 timed here on the same bytes\n\n");
  std::printf("%-17s %8s %11s %13s %13s %13s %13s\n", "batch", "bytes", "LZ4 ratio", "LZ4 here",
              "LZ4 dec here", "Impala ser", "Impala deser");
  std::vector<double> ser_published, deser_published, compress_here, decompress_here;
  double no_dups_bytes = 0;
  for (const Variant& v : kVariants) {
    const std::string batch = serialized_batch(v);
    std::vector<char> packed(static_cast<std::size_t>(LZ4_compressBound(static_cast<int>(batch.size()))));
    const int packed_bytes = LZ4_compress_default(batch.data(), packed.data(), static_cast<int>(batch.size()),
                                                  static_cast<int>(packed.size()));
    std::vector<char> unpacked(batch.size());
    const double compress_us = median_us([&] {
      volatile int n = LZ4_compress_default(batch.data(), packed.data(), static_cast<int>(batch.size()),
                                            static_cast<int>(packed.size()));
      (void)n;
    });
    const double decompress_us = median_us([&] {
      volatile int n = LZ4_decompress_safe(packed.data(), unpacked.data(), packed_bytes, static_cast<int>(unpacked.size()));
      (void)n;
    });
    if (std::memcmp(unpacked.data(), batch.data(), batch.size()) != 0) {
      std::fprintf(stderr, "serialize_split: LZ4 did not give the batch back\n");
      return 3;
    }
    if (no_dups_bytes == 0) no_dups_bytes = static_cast<double>(batch.size());
    ser_published.push_back(1e3 / v.serialize_per_ms);
    deser_published.push_back(1e3 / v.deserialize_per_ms);
    compress_here.push_back(compress_us);
    decompress_here.push_back(decompress_us);
    std::printf("%-17s %8zu %11.3f %10.2f us %10.2f us %10.2f us %10.2f us\n", v.name, batch.size(),
                static_cast<double>(packed_bytes) / static_cast<double>(batch.size()), compress_us, decompress_us,
                ser_published.back(), deser_published.back());
  }
  std::printf("\nEvery batch is kept compressed (LZ4 output smaller): LZ4 is inside both of Impala's times.\n");
  report_split(ser_published, compress_here, no_dups_bytes);
  std::printf("\ndeserialization, no dups: Impala %.2f us a batch, LZ4 decompression alone %.2f us here; at the c\n"
              "above, decompression is most of Impala's time\n", deser_published[0], decompress_here[0]);
  std::printf("\n(A pair whose LZ4 times here are alike gives a poor split: its S can even be negative.)\n");
  return 0;
}
