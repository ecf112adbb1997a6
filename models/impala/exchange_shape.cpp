#include "models/impala/exchange_shape.h"

#include <algorithm>
#include <cmath>
#include <optional>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "models/impala/row_layout.h"

namespace exsim {

using Json = nlohmann::ordered_json;

double local_share(const std::vector<std::string>& senders, const std::vector<std::string>& receivers, bool broadcast) {
  if (senders.empty() || receivers.empty()) return 0;
  double sum = 0;
  for (const std::string& s : senders) {
    const auto here = static_cast<double>(std::count(receivers.begin(), receivers.end(), s));
    sum += broadcast ? (receivers.size() == 1 && here == 1 ? 1 : 0) : here / static_cast<double>(receivers.size());
  }
  return sum / static_cast<double>(senders.size());
}

std::vector<ShapeNote> import_row_and_compression(const SenderCounters& counters, const ExchangeShape& shape,
                                                  Json& exchange) {
  std::vector<ShapeNote> notes;
  const auto note = [&](const std::string& pointer, std::string text, bool assumed) {
    notes.push_back({pointer, std::move(text), assumed});
  };
  const int copies = shape.kind == "broadcast" ? shape.channels : 1;
  const double data = counters.uncompressed ? *counters.uncompressed : counters.bytes_sent.value_or(0);
  double row_bytes = data / copies / shape.rows - 4;  // less the 4 B offset per row (row-batch.cc)
  if (data <= 0) row_bytes = 64;
  const std::int64_t whole = std::max<std::int64_t>(1, std::llround(row_bytes));
  exchange["row"] = Json{{"fixed_bytes", whole}};
  // A hash sender's calls show how much of the row is its fixed layout, by
  // which Impala sizes a channel's batch (row_layout.h), at the 16K assumed.
  std::optional<RowLayout> layout;
  if (shape.kind == "hash" && counters.uncompressed && counters.rpcs && counters.eos_rpcs) {
    layout = fixed_layout_from_calls(shape.rows, *counters.rpcs - *counters.eos_rpcs,
                                     static_cast<double>(shape.senders) * shape.channels, 16 * 1024, whole);
  }
  if (layout && layout->fixed < whole) {
    exchange["row"] = Json{{"fixed_bytes", layout->fixed}, {"varlen_bytes", whole - layout->fixed}};
    note("/row/fixed_bytes",
         fmt::format("derived: a full batch held {:.0f} rows ({:.0f} rows in RpcSuccess - EosSent = {:.0f} batches of "
                     "{} channels, each channel's last one half full), and Impala sizes a channel's batch by the row's "
                     "fixed layout, 16K / {} B",
                     layout->capacity, shape.rows, *counters.rpcs - *counters.eos_rpcs,
                     shape.senders * shape.channels,
                     layout->fixed),
         false);
    note("/row/varlen_bytes",
         fmt::format("derived: the rest of the row's {} B (UncompressedRowBatchSize / rows less 4 B of offset), its "
                     "string data",
                     whole),
         false);
  } else if (counters.uncompressed) {
    note("/row/fixed_bytes",
         fmt::format("measured: UncompressedRowBatchSize / rows{} less 4 B of offset per row ({:.0f} / {:.0f}); the "
                     "profile does not split fixed from var-len bytes{}, so all are fixed",
                     copies > 1 ? fmt::format(" / {} channels", copies) : "", *counters.uncompressed, shape.rows,
                     shape.kind == "hash" ? " (nor do its calls: too few batches a channel)" : ""),
         false);
  } else {
    note("/row/fixed_bytes",
         counters.bytes_sent ? "assumed: no UncompressedRowBatchSize counter; the row size is taken from the bytes sent"
              : "assumed: neither UncompressedRowBatchSize nor BytesSent is in the profile; 64 B rows",
         true);
  }
  // Both counters hold the 4 B offset of each row of each copy, which LZ4
  // does not compress (krpc-data-stream-sender.cc adds GetSerializedSize and
  // GetDeserializedSize: tuple data and offsets); the ratio is the tuple data's.
  const double offsets = 4 * shape.rows * copies;
  // The batches to the sender's own process went out counters.uncompressed: the
  // counters' ratio r mixes LZ4's ratio R on the rest, r = L + (1 - L) R.
  const double local = shape.local_share;
  if (counters.bytes_sent && counters.uncompressed && *counters.uncompressed > offsets && *counters.bytes_sent > offsets && local < 1) {
    // Above 1, LZ4's output would not be kept (outbound-row-batch.cc:76-82);
    // 0.01 is as far as LZ4 compresses. A value moved into that range is said to be.
    const double mixed = (*counters.bytes_sent - offsets) / (*counters.uncompressed - offsets);
    const double measured = (mixed - local) / (1 - local), ratio = std::clamp(measured, 0.01, 1.0);
    exchange["lz4_ratio"] = ratio;
    std::string quotient =
        fmt::format("(BytesSent - offsets) / (UncompressedRowBatchSize - offsets) = ({:.0f} - {:.0f}) / ({:.0f} - {:.0f})",
                    *counters.bytes_sent, offsets, *counters.uncompressed, offsets);
    if (local > 0) {
      quotient = fmt::format("{} = {:.4g} of which {:.3g} of the batches went to the sender's own process "
                             "counters.uncompressed: (r - {:.3g}) / (1 - {:.3g})",
                             quotient, mixed, local, local, local);
    }
    if (ratio == measured) {
      note("/lz4_ratio", "measured: " + quotient, false);
    } else {
      note("/lz4_ratio", fmt::format("assumed: {} = {:.3g}, taken as {:g}, the nearest ratio LZ4 gives", quotient,
                                          measured, ratio),
           true);
    }
  } else {
    exchange["lz4_ratio"] = 1.0;
    note("/lz4_ratio",
         "assumed: BytesSent or UncompressedRowBatchSize is missing (or holds no more than the rows' offsets), so no "
         "compression is assumed",
         true);
  }

  return notes;
}

}  // namespace exsim
