// Round-trip times between hosts, in integer nanoseconds. Built from the
// scenario's rtt_ms rules, an explicit rtt_matrix_ms, or a topology graph.
#ifndef EXSIM_MODELS_SCENARIO_LATENCY_MATRIX_H_
#define EXSIM_MODELS_SCENARIO_LATENCY_MATRIX_H_

#include <cstdint>
#include <string>
#include <vector>

namespace exsim {

using Nanos = std::int64_t;

inline Nanos ms_to_ns(double ms) { return static_cast<Nanos>(ms * 1e6 + 0.5); }

class LatencyMatrix {
 public:
  LatencyMatrix() = default;
  explicit LatencyMatrix(int hosts) : hosts_(hosts), rtt_(static_cast<size_t>(hosts) * hosts, 0) {}

  int hosts() const { return hosts_; }
  Nanos rtt(int from, int to) const { return rtt_[static_cast<size_t>(from) * hosts_ + to]; }
  void set_rtt(int from, int to, Nanos rtt) { rtt_[static_cast<size_t>(from) * hosts_ + to] = rtt; }
  double rtt_ms(int from, int to) const { return static_cast<double>(rtt(from, to)) / 1e6; }

  bool operator==(const LatencyMatrix&) const = default;

 private:
  int hosts_ = 0;
  std::vector<Nanos> rtt_;
};

// A switches-and-links graph. Hosts and switches are nodes; each link adds its
// rtt_ms to every path through it; the RTT of a host pair is its shortest path.
struct Topology {
  struct Link {
    std::string from, to;
    double rtt_ms = 0;
  };
  std::vector<std::string> switches;
  std::vector<Link> links;
};

// Shortest-path RTTs (Dijkstra, Boost.Graph). Returns an empty vector and sets
// `error` when a link names an unknown node or a host pair is not connected.
// `self_rtt` fills the diagonal.
std::vector<std::vector<double>> topology_rtt_ms(const Topology& topology, const std::vector<std::string>& hosts,
                                                 double self_rtt_ms, std::string& error);

}  // namespace exsim

#endif  // EXSIM_MODELS_SCENARIO_LATENCY_MATRIX_H_
