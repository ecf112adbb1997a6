// An imported exchange's rows and compression, from its senders' counters:
// the row's size (its fixed layout and string data, where a hash sender's
// calls show them, row_layout.h) and LZ4's ratio on the tuple data, with the
// batches a sender sent to its own daemon uncompressed taken out (IMPALA-12430).
// Each value comes with a note saying where it came from.
#ifndef EXSIM_MODELS_IMPALA_EXCHANGE_SHAPE_H_
#define EXSIM_MODELS_IMPALA_EXCHANGE_SHAPE_H_

#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "models/impala/exchange_counters.h"

namespace exsim {

struct ExchangeShape {
  std::string kind;      // hash, broadcast, random, merge
  double rows = 0;       // sent
  int channels = 1;      // receivers of a sender
  int senders = 1;       // sender instances
  double local_share = 0;  // of a sender's batches, those to its own daemon sent uncompressed
};

struct ShapeNote {
  std::string pointer;  // below the exchange: "/row/fixed_bytes"
  std::string text;
  bool assumed = false;
};

// Of a sender's batches, the share that go to a receiver in its own process
// (its daemon): the channels to receivers there over all its channels,
// averaged over the sender instances (`senders` and `receivers`: each
// instance's host). A broadcast skips LZ4 only when its one channel is local
// (krpc-data-stream-sender.cc:1150-1153). 0 when either side's hosts are not known.
double local_share(const std::vector<std::string>& senders, const std::vector<std::string>& receivers, bool broadcast);

// Writes the exchange's "row" and "lz4_ratio" into `exchange`; returns their notes.
std::vector<ShapeNote> import_row_and_compression(const SenderCounters& counters, const ExchangeShape& shape,
                                                  nlohmann::ordered_json& exchange);

}  // namespace exsim

#endif  // EXSIM_MODELS_IMPALA_EXCHANGE_SHAPE_H_
