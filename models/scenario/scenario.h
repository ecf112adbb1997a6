// A scenario, typed and validated: the cluster, the policies to compare and the
// workload. Built only by load_scenario (scenario_loader.h); everything here
// has been checked, so sim/ and transport/ can trust it.
#ifndef EXSIM_MODELS_SCENARIO_SCENARIO_H_
#define EXSIM_MODELS_SCENARIO_SCENARIO_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "models/scenario/costs.h"
#include "models/scenario/latency_matrix.h"
#include "models/scenario/policy.h"
#include "models/scenario/varlen.h"

namespace exsim {

struct Host {
  std::string name;
  std::string group;
  bool operator==(const Host&) const = default;
};

struct Cluster {
  std::vector<Host> hosts;
  int cores_per_host = 16;
  double nic_gbps = 10;  // per host, each direction
  // A host's memory, against which a policy's worst-case sender memory is
  // flagged; 0: not given (anything past kAssumedHostMemory is flagged).
  Bytes memory_per_host = 0;
  LatencyMatrix rtt;
  bool operator==(const Cluster&) const = default;
};
inline constexpr Bytes kAssumedHostMemory = Bytes{8} << 30;

enum class PartitionKind { kHash, kBroadcast, kRandom, kMerge };

const char* to_string(PartitionKind kind);

struct RowShape {
  Bytes fixed_bytes = 0;  // Impala's fixed-length row size; a STRING slot counts 12 B
  VarLenDistribution varlen;
  bool operator==(const RowShape&) const = default;
};

// Where the instances of one side of an exchange run.
struct Placement {
  std::vector<int> hosts;  // indices into Cluster::hosts, ascending
  int per_host = 1;
  int instances() const { return static_cast<int>(hosts.size()) * per_host; }
  // Host of instance i: instances are numbered host by host.
  int host_of(int instance) const { return hosts[static_cast<size_t>(instance / per_host)]; }
  bool operator==(const Placement&) const = default;
};

// The scan beneath the operator that feeds a sender (Impala's HDFS scan node).
// Each row sent costs 1 / rows_per_s of one thread's CPU to scan. At mt_dop 0
// the scan node's `threads` scanner threads do that work beside the sender's
// thread and hand it row batches through a bounded queue (hdfs-scan-node.cc);
// at mt_dop > 0 the fragment instance's own thread scans (hdfs-scan-node-mt.cc
// has no scanner threads). models/rules/scan_feed.h has the rules.
struct ScanSource {
  double rows_per_s = 0;  // 0: no scan of its own (the operator's cost is all)
  int threads = 0;
  bool operator==(const ScanSource&) const = default;
};

struct Exchange {
  std::string id;
  PartitionKind kind = PartitionKind::kHash;
  std::int64_t rows = 0;
  RowShape row;
  double lz4_ratio = 1.0;  // compressed / uncompressed
  Placement senders;
  Placement receivers;
  double skew = 0;                  // Zipf exponent over receiver instances (hash)
  double produce_rows_per_s = 0;    // per sender instance; 0 = not a bottleneck
  double consume_rows_per_s = 0;    // per receiver instance; 0 = not a bottleneck
  // Rows in each batch the producing operator hands the sender (Impala's
  // batch_size, 1024; scans and joins emit fewer): what a broadcast, random
  // or merge sender sends each call, and its scanner threads queue.
  std::int64_t input_batch_rows = kInputBatchRows;
  ScanSource scan;                  // per sender instance
  std::vector<int> after;           // indices of exchanges of the same query

  // How its senders send: a hash sender with a single channel takes the
  // whole-batch path of random (docs/impala.md §1.7), so it sends, batches and
  // buffers as one; only the planner still sees a hash partition.
  PartitionKind send_path() const {
    return kind == PartitionKind::kHash && receivers.instances() == 1 ? PartitionKind::kRandom : kind;
  }
  bool operator==(const Exchange&) const = default;
};

struct Query {
  std::string name;
  int repeat = 1;
  std::vector<Exchange> exchanges;
};

struct Scenario {
  std::string name;
  std::string description;
  // (JSON pointer, note): the source of a value or the assumption behind it.
  std::vector<std::pair<std::string, std::string>> notes;
  std::uint64_t seed = 0;
  std::string file;  // where it was loaded from, for messages
  Cluster cluster;
  int mt_dop = 0;
  CostProfile costs;
  std::vector<Policy> policies;  // the first is the baseline
  std::vector<Query> queries;    // run one after another
};

}  // namespace exsim

#endif  // EXSIM_MODELS_SCENARIO_SCENARIO_H_
