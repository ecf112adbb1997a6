// The smallest of a fixed set of keyed slots, kept as keys change: a
// tournament tree (each inner node holds the smaller of its two children;
// among equal keys the lower slot wins), so a change costs one walk up, and the
// minimum is read off the root. Network keeps its connections' finish times
// here: a busy cluster of H hosts has up to H^2 connections, and a scan of
// them at every completion made a 128-host cluster's end-of-stream take
// most of a minute.
#ifndef EXSIM_SIM_RESOURCES_MIN_TREE_H_
#define EXSIM_SIM_RESOURCES_MIN_TREE_H_

#include <algorithm>
#include <bit>
#include <cstdint>
#include <limits>
#include <vector>

namespace exsim::sim {

class MinTree {
 public:
  static constexpr std::int64_t kNone = std::numeric_limits<std::int64_t>::max();
  struct Entry {
    std::int64_t key;
    int slot;
  };

  // `slots` slots, each at kNone. Keys are not negative: a key and its slot
  // are packed into one unsigned number, where a negative key would sort last.
  explicit MinTree(int slots)
      : leaves_(std::bit_ceil(static_cast<std::size_t>(slots > 0 ? slots : 1))), nodes_(2 * leaves_) {
    for (std::size_t i = 0; i < leaves_; ++i) nodes_[leaves_ + i] = pack(kNone, static_cast<int>(i));
    for (std::size_t i = leaves_ - 1; i >= 1; --i) nodes_[i] = std::min(nodes_[2 * i], nodes_[2 * i + 1]);
  }

  // REQUIRES: 0 <= slot < slots, key >= 0.
  void set(int slot, std::int64_t key) {
    // The new entry rises, meeting each sibling on the way: the siblings'
    // loads do not wait on one another, where rereading each node just
    // written made every level wait for the one below.
    std::size_t i = leaves_ + static_cast<std::size_t>(slot);
    Node winner = pack(key, slot);
    nodes_[i] = winner;
    for (; i > 1; i >>= 1) {
      winner = std::min(winner, nodes_[i ^ 1]);
      nodes_[i >> 1] = winner;
    }
  }

  // The smallest key and its slot (the lowest among equals); key kNone when all are.
  Entry top() const {
    return {static_cast<std::int64_t>(nodes_[1] >> 32), static_cast<int>(nodes_[1] & 0xffffffffu)};
  }

 private:
  // Key and slot in one number, so that one comparison orders by key, then slot.
  __extension__ typedef unsigned __int128 Node;  // GCC and Clang, on every 64-bit target
  static Node pack(std::int64_t key, int slot) {
    return (static_cast<Node>(static_cast<std::uint64_t>(key)) << 32) | static_cast<std::uint32_t>(slot);
  }

  std::size_t leaves_;
  std::vector<Node> nodes_;  // 1 is the root; leaves from leaves_
};

}  // namespace exsim::sim

#endif  // EXSIM_SIM_RESOURCES_MIN_TREE_H_
