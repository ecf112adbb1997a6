#include "models/impala/row_layout.h"

#include <algorithm>
#include <cmath>

namespace exsim {

std::optional<RowLayout> fixed_layout_from_calls(double rows, double batches, double sender_channels, double buffer,
                                                 std::int64_t row_bytes) {
  if (sender_channels <= 0 || rows <= 0 || buffer <= 0) return std::nullopt;
  RowLayout layout;
  if (batches == sender_channels) {
    layout.bound = true;
    layout.capacity = 2 * rows / sender_channels;
  } else if (batches >= 2 * sender_channels) {
    // Each channel's last batch is partial, half full on average.
    layout.capacity = rows / (batches - sender_channels / 2);
  } else {
    return std::nullopt;
  }
  // The layout whose capacity, buffer / layout rounded down, is nearest.
  layout.fixed = std::clamp<std::int64_t>(std::llround(buffer / layout.capacity), 1, std::max<std::int64_t>(1, row_bytes));
  return layout;
}

std::optional<std::int64_t> input_batch_rows_from_calls(double rows, double batches, double calls_per_batch,
                                                        double senders) {
  if (calls_per_batch <= 0 || senders <= 0 || rows <= 0) return std::nullopt;
  const double per_sender_batches = batches / calls_per_batch;
  if (per_sender_batches < 2 * senders) return std::nullopt;
  return std::max<std::int64_t>(1, std::llround(rows / (per_sender_batches - senders / 2)));
}

}  // namespace exsim
