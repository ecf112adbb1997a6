#include "models/impala/row_layout.h"

#include <algorithm>
#include <cmath>

namespace exsim {

std::optional<RowLayout> fixed_layout_from_calls(double rows, double batches, double sender_channels, double buffer,
                                                 std::int64_t row_bytes) {
  if (sender_channels <= 0 || batches < 2 * sender_channels || rows <= 0 || buffer <= 0) return std::nullopt;
  // Each channel's last batch is partial, half full on average.
  RowLayout layout;
  layout.capacity = rows / (batches - sender_channels / 2);
  // The layout whose capacity, buffer / layout rounded down, is nearest.
  layout.fixed = std::clamp<std::int64_t>(std::llround(buffer / layout.capacity), 1, std::max<std::int64_t>(1, row_bytes));
  return layout;
}

}  // namespace exsim
