// How much of a row is its fixed layout, from a hash sender's calls.
//
// Impala sizes a channel's batch by the row's fixed layout: capacity =
// max(1, data_stream_sender_buffer_size / RowDescriptor::GetRowSize())
// (krpc-data-stream-sender.cc), a string slot counting 12 B whatever its data.
// A profile gives neither the layout nor the string data, only their sum per
// row; but a hash sender's channels each fill batches of that capacity and
// send the last one partial, so its calls give the capacity, and the buffer
// over the capacity the layout: q72's 246 B rows went 176 a call at 16K, a
// 93 B layout.
#ifndef EXSIM_MODELS_IMPALA_ROW_LAYOUT_H_
#define EXSIM_MODELS_IMPALA_ROW_LAYOUT_H_

#include <cstdint>
#include <optional>

namespace exsim {

struct RowLayout {
  double capacity = 0;     // rows a full batch held
  std::int64_t fixed = 0;  // bytes of a row's fixed layout
  // The calls bound the capacity from below only: every channel sent one
  // batch, so a batch held at least a channel's rows. `capacity` is then
  // taken as twice a channel's mean rows (room for a channel hashed twice its
  // share), the layout at most buffer over the mean.
  bool bound = false;
};

// `rows` sent in `batches` (TransmitData calls) by `sender_channels` channels
// (senders times receivers), with a `buffer` of bytes a channel, rows of
// `row_bytes` in all. A bound (above) when every channel sent one batch;
// nullopt when they sent more than one but fewer than two each (the partial
// last ones would decide it).
std::optional<RowLayout> fixed_layout_from_calls(double rows, double batches, double sender_channels, double buffer,
                                                 std::int64_t row_bytes);

// A whole-batch sender (a broadcast, random or merge exchange, a hash one of
// one channel) sends each batch its producer hands it whole, to every channel
// (broadcast) or to one: its calls give the producer's batch, `rows` over
// `batches` / `calls_per_batch` batches of `senders`, each sender's last one
// partial. The rows a batch held, rounded; nullopt when the senders sent too
// few batches for it to show (fewer than two each).
std::optional<std::int64_t> input_batch_rows_from_calls(double rows, double batches, double calls_per_batch,
                                                        double senders);

}  // namespace exsim

#endif  // EXSIM_MODELS_IMPALA_ROW_LAYOUT_H_
