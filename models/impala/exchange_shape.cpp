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
  // Impala counts a batch's rows twice over in these counters: TotalBytesSent
  // adds the serialized batch, its tuple data and a 4 B offset a row;
  // UncompressedRowBatchSize the deserialized one, its tuple data uncompressed
  // and an 8 B tuple pointer a row (outbound-row-batch.h:119-125,
  // GetSerializedSize and GetDeserializedSize). A broadcast's count every
  // channel's copy.
  const int copies = shape.kind == "broadcast" ? shape.channels : 1;
  const double sent_per_row = 4 * shape.rows * copies, deserialized_per_row = 8 * shape.rows * copies;
  const double tuple = counters.uncompressed ? *counters.uncompressed - deserialized_per_row
                                             : counters.bytes_sent.value_or(0) - sent_per_row;
  const double row_bytes = tuple > 0 ? tuple / copies / shape.rows : 64;
  const std::int64_t whole = std::max<std::int64_t>(1, std::llround(row_bytes));
  exchange["row"] = Json{{"fixed_bytes", whole}};
  // A hash sender's calls show how much of the row is its fixed layout, by
  // which Impala sizes a channel's batch (row_layout.h), at the 16K assumed.
  std::optional<RowLayout> layout;
  // One channel takes the whole-batch path (krpc-data-stream-sender.cc: a
  // single channel sends each input batch whole), which no layout sizes.
  if (shape.kind == "hash" && shape.channels > 1 && counters.uncompressed && counters.rpcs && counters.eos_rpcs) {
    layout = fixed_layout_from_calls(shape.rows, *counters.rpcs - *counters.eos_rpcs,
                                     static_cast<double>(shape.senders) * shape.channels, 16 * 1024, whole);
  }
  if (layout && layout->fixed < whole) {
    exchange["row"] = Json{{"fixed_bytes", layout->fixed}, {"varlen_bytes", whole - layout->fixed}};
    const double batches = *counters.rpcs - *counters.eos_rpcs;
    if (layout->bound) {
      note("/row/fixed_bytes",
           fmt::format("assumed: each of the {} channels sent its {:.0f} rows (on average) in one batch (RpcSuccess - "
                       "EosSent = {:.0f}), so Impala's batch, sized by the row's fixed layout, held at least that: a "
                       "layout of at most {:.0f} B; taken as room for twice a channel's rows, 16K / {} B",
                       shape.senders * shape.channels, shape.rows / (shape.senders * shape.channels), batches,
                       16384 / std::ceil(shape.rows / (shape.senders * shape.channels)), layout->fixed),
           true);
    } else {
      note("/row/fixed_bytes",
           fmt::format("derived: a full batch held {:.0f} rows ({:.0f} rows in RpcSuccess - EosSent = {:.0f} batches "
                       "of {} channels, each channel's last one half full), and Impala sizes a channel's batch by the "
                       "row's fixed layout, 16K / {} B",
                       layout->capacity, shape.rows, batches, shape.senders * shape.channels, layout->fixed),
           false);
    }
    note("/row/varlen_bytes",
         fmt::format("{}: the rest of the row's {} B (UncompressedRowBatchSize / rows less 8 B of tuple pointer), its "
                     "string data",
                     layout->bound ? "assumed" : "derived", whole),
         layout->bound);
  } else if (counters.uncompressed) {
    note("/row/fixed_bytes",
         fmt::format("measured: UncompressedRowBatchSize / rows{} less 8 B of tuple pointer a row ({:.0f} / {:.0f}); the "
                     "profile does not split fixed from var-len bytes{}, so all are fixed",
                     copies > 1 ? fmt::format(" / {} channels", copies) : "", *counters.uncompressed, shape.rows,
                     shape.kind == "hash" && shape.channels > 1 ? " (nor do its calls: too few batches a channel)" : ""),
         false);
  } else {
    note("/row/fixed_bytes",
         counters.bytes_sent ? "assumed: no UncompressedRowBatchSize counter; the row size is taken from the bytes sent"
              : "assumed: neither UncompressedRowBatchSize nor BytesSent is in the profile; 64 B rows",
         true);
  }
  // A whole-batch sender's calls show its producer's batches (row_layout.h).
  const bool whole_batches = shape.kind != "hash" || shape.channels == 1;
  if (whole_batches && counters.rpcs && counters.eos_rpcs) {
    const double batches = *counters.rpcs - *counters.eos_rpcs;
    const double per_batch = shape.kind == "broadcast" ? shape.channels : 1;
    const auto input = input_batch_rows_from_calls(shape.rows, batches, per_batch, shape.senders);
    // Impala's batch_size, 1024, is the model's default; a value above it is
    // the rounding of nearly full batches.
    if (input && *input < 1024) {
      exchange["input_batch_rows"] = *input;
      note("/input_batch_rows",
           fmt::format("derived: {:.0f} rows in {:.0f} batches (RpcSuccess - EosSent{}) of {} sender(s), each "
                       "sender's last one half full: the producer handed the sender {} rows a batch",
                       shape.rows, batches, per_batch > 1 ? fmt::format(", each to {} channels", shape.channels) : "",
                       shape.senders, *input),
           false);
    }
  }
  // The ratio is the tuple data's. The batches to the sender's own process
  // went out uncompressed: the counters' ratio r mixes LZ4's ratio R on the
  // rest, r = L + (1 - L) R.
  const double local = shape.local_share;
  if (counters.bytes_sent && counters.uncompressed && *counters.uncompressed > deserialized_per_row &&
      *counters.bytes_sent > sent_per_row && local < 1) {
    // Above 1, LZ4's output would not be kept (outbound-row-batch.cc:76-82);
    // 0.01 is as far as LZ4 compresses. A value moved into that range is said to be.
    const double mixed = (*counters.bytes_sent - sent_per_row) / (*counters.uncompressed - deserialized_per_row);
    const double measured = (mixed - local) / (1 - local), ratio = std::clamp(measured, 0.01, 1.0);
    exchange["lz4_ratio"] = ratio;
    std::string quotient =
        fmt::format("(BytesSent - 4 B a row) / (UncompressedRowBatchSize - 8 B a row) = ({:.0f} - {:.0f}) / ({:.0f} - {:.0f})",
                    *counters.bytes_sent, sent_per_row, *counters.uncompressed, deserialized_per_row);
    if (local > 0) {
      quotient = fmt::format("{} = {:.4g} of which {:.3g} of the batches went to the sender's own process "
                             "uncompressed: (r - {:.3g}) / (1 - {:.3g})",
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
         local >= 1 ? "assumed: every batch went to the sender's own process, uncompressed (IMPALA-12430): the "
                      "profile shows no LZ4 ratio, so none is assumed"
                    : "assumed: BytesSent or UncompressedRowBatchSize is missing (or holds no tuple data), so no "
                      "compression is assumed",
         true);
  }

  return notes;
}

}  // namespace exsim
