#include "workflows/policy_search.h"

#include <algorithm>
#include <array>
#include <exception>
#include <limits>

#include <fmt/format.h>

#include "workflows/parallel.h"
#include "models/rules/policy_notes.h"
#include "models/results/decision_rule.h"
#include "models/rules/sender_memory.h"

namespace exsim::workflows {
namespace {

std::vector<Bytes> powers_of_two(Bytes from, Bytes to) {
  std::vector<Bytes> sizes;
  for (Bytes b = from; b <= to; b *= 2) sizes.push_back(b);
  return sizes;
}

// One chain: its candidates by size, ascending. Wall-clock falls with size to
// the chain's fastest and may rise beyond it (a sender's buffers outgrowing the
// cache, memory written for the first time, a stream's last partial batches):
// taken as unimodal. kTop: only the chain's top feasible size, about its
// fastest; kBelowTop: the size below it too, which shows whether the chain
// rises at its top; kFastest: where it rises there, its fastest, by bisecting
// on the slope. kSearch: the smallest size whose wall-clock is at most `target`
// (the decision rule's bound: the fastest seen, plus the margin), by bisecting
// the falling part below a size within it: the top, or, where the top is past
// the target, the chain's fastest. log2 of the chain's length once or twice,
// not its length.
enum class ChainStep { kTop, kBelowTop, kFastest, kSearch };
void search_chain(std::vector<Candidate>& candidates, const std::vector<std::size_t>& chain, ChainStep step,
                  double target, const std::function<RunResult(const Policy&)>& simulate) {
  std::vector<std::size_t> feasible;
  for (std::size_t i : chain) {
    if (candidates[i].feasible) feasible.push_back(i);
  }
  if (feasible.empty()) return;
  const auto wall = [&](std::size_t f) {
    Candidate& c = candidates[feasible[f]];
    if (!c.result) c.result = simulate(c.policy);
    return c.result->wall_s;
  };
  // The fastest of feasible[0..last], the chain being unimodal.
  const auto fastest_up_to = [&](std::size_t last) {
    std::size_t from = 0;
    while (from < last) {
      const std::size_t mid = from + (last - from) / 2;
      if (wall(mid + 1) < wall(mid)) {
        from = mid + 1;
      } else {
        last = mid;
      }
    }
    return last;
  };
  const std::size_t top = feasible.size() - 1;
  switch (step) {
    case ChainStep::kTop:
      wall(top);
      return;
    case ChainStep::kBelowTop:
      wall(top);
      if (top > 0) wall(top - 1);
      return;
    case ChainStep::kFastest:
      if (top > 0 && wall(top - 1) < wall(top)) fastest_up_to(top - 1);
      return;
    case ChainStep::kSearch:
      break;
  }
  std::size_t lo = top;
  if (wall(top) > target) {
    lo = fastest_up_to(top);
    if (wall(lo) > target) return;
  }
  std::size_t low = 0, high = lo;  // feasible[high] is within the target
  while (low < high) {
    const std::size_t mid = low + (high - low) / 2;
    if (wall(mid) <= target) {
      high = mid;
    } else {
      low = mid + 1;
    }
  }
}

// The candidates as the decision rule sees them: a feasible one that was
// simulated fits; the others are not choices.
std::vector<DecisionChoice> choices_of(const std::vector<Candidate>& candidates) {
  std::vector<DecisionChoice> choices;
  for (const Candidate& c : candidates) {
    const bool fits = c.feasible && c.result;
    choices.push_back({fits ? c.result->wall_s : 0, static_cast<double>(c.memory), fits});
  }
  return choices;
}

// The fastest simulated candidate that fits, as the decision rule finds it.
std::optional<std::size_t> fastest_seen(const std::vector<Candidate>& candidates) {
  return fastest_fitting(choices_of(candidates));
}

// The fastest seen is the fastest of its chain only if its feasible
// neighbours in the chain are slower: the chain's top estimates its fastest,
// and a chain that rises gently there has it a size or two below. So the
// neighbours are simulated, and the fastest followed, until neither beats it.
void climb_to_fastest(std::vector<Candidate>& candidates, const std::vector<std::vector<std::size_t>>& chains,
                      int jobs, const std::function<RunResult(const Policy&)>& simulate) {
  for (;;) {
    const std::optional<std::size_t> best = fastest_seen(candidates);
    if (!best) return;
    std::vector<std::size_t> neighbours;
    for (const auto& chain : chains) {
      std::vector<std::size_t> feasible;
      for (std::size_t i : chain) {
        if (candidates[i].feasible) feasible.push_back(i);
      }
      const auto at = std::find(feasible.begin(), feasible.end(), *best);
      if (at == feasible.end()) continue;
      if (at != feasible.begin()) neighbours.push_back(*(at - 1));
      if (at + 1 != feasible.end()) neighbours.push_back(*(at + 1));
    }
    std::erase_if(neighbours, [&](std::size_t i) { return candidates[i].result.has_value(); });
    if (neighbours.empty()) return;
    const std::exception_ptr failure = for_each_parallel(neighbours.size(), jobs, [&](std::size_t n) {
      candidates[neighbours[n]].result = simulate(candidates[neighbours[n]].policy);
    });
    if (failure) std::rethrow_exception(failure);
  }
}

// A flat buffer's batch takes the room of the first power of two at or above
// it (models/rules/sender_memory.h), and a fixed-length capacity ignores the
// var-len bytes, so a batch sized for P overflows P and takes 2P: just past a
// doubling, a few percent more rows cost twice the memory. Below each size P
// of `sizes`, the largest whole-KiB size above the size before it (P/2 for the
// first) that saves at least `kDoublingSaving` of P's static memory: its
// batches fit the room one doubling down. The saving tells a doubling of the
// batches' buffers (about half the memory) from the smaller steps of their
// offsets' room (4 B a row) or of a minor exchange. Static memory grows with a
// flat size (more rows a batch), so it is found by bisection, unsimulated.
constexpr double kDoublingSaving = 0.25;
std::vector<Bytes> with_sizes_under_doublings(const Scenario& scenario, Policy policy,
                                              const std::vector<Bytes>& sizes, MemoryMeasure measure) {
  const auto memory = [&](Bytes size) {
    policy.buffer.flat = size;
    return static_cast<double>(static_memory(scenario, policy, measure));
  };
  std::vector<Bytes> out;
  Bytes before = sizes.empty() ? 0 : sizes.front() / 2;
  for (Bytes size : sizes) {
    const double most = memory(size) * (1 - kDoublingSaving);
    // In KiB: the largest k in (before, size) with memory(k KiB) <= most.
    Bytes low = before / kKiB + 1, high = (size - 1) / kKiB;
    if (low <= high && memory(low * kKiB) <= most) {
      while (low < high) {
        const Bytes mid = low + (high - low + 1) / 2;
        if (memory(mid * kKiB) <= most) {
          low = mid;
        } else {
          high = mid - 1;
        }
      }
      out.push_back(low * kKiB);
    }
    out.push_back(size);
    before = size;
  }
  return out;
}


// Counts the simulations, picks by the decision rule, and marks the dominated
// and the others within its margin.
SearchOutcome finish(SearchOutcome out, double margin) {
  for (const Candidate& c : out.candidates) out.simulations += c.result ? 1 : 0;
  const std::vector<DecisionChoice> choices = choices_of(out.candidates);
  out.best = decide(choices, margin);
  out.fastest = fastest_fitting(choices);
  for (std::size_t i = 0; i < out.candidates.size(); ++i) {
    Candidate& c = out.candidates[i];
    if (!c.result) continue;
    for (const Candidate& d : out.candidates) {
      if (&d == &c || !d.result) continue;
      const bool no_worse = d.result->wall_s <= c.result->wall_s && d.memory <= c.memory;
      if (no_worse && (d.result->wall_s < c.result->wall_s || d.memory < c.memory)) c.dominated = true;
    }
    if (out.best && i != *out.best && c.feasible &&
        within_margin(c.result->wall_s, out.candidates[*out.fastest].result->wall_s, margin)) {
      out.ties.push_back(i);
    }
  }
  return out;
}

}  // namespace

Bytes static_memory(const Scenario& scenario, const Policy& policy, MemoryMeasure measure) {
  const std::vector<Bytes> per_host = static_sender_bytes_per_host(scenario, policy, measure == MemoryMeasure::kWorst);
  return per_host.empty() ? 0 : *std::max_element(per_host.begin(), per_host.end());
}

SearchSpace default_search_space(const Policy& base) {
  return {base, powers_of_two(16 * kKiB, 8 * kMiB), powers_of_two(256 * kKiB, kGiB), {1, 2, 4}};
}

std::string candidate_name(const Policy& p) {
  std::string name = p.buffer.kind == BufferSizing::Kind::kFlat ? "flat-" + format_size(p.buffer.flat)
                                                                : "budget-" + format_size(p.buffer.budget);
  if (p.in_flight > 1) name += fmt::format("-in-flight-{}", p.in_flight);
  return name;
}

SearchOutcome search_policies(const Scenario& scenario, const SearchSpace& space, const SearchOptions& options,
                              const std::function<RunResult(const Policy&)>& simulate) {
  SearchOutcome out;
  // Chains per in-flight count: flat, then budget.
  std::vector<std::vector<std::vector<std::size_t>>> chains(space.in_flight.size());
  for (std::size_t k = 0; k < space.in_flight.size(); ++k) {
    for (int family = 0; family < 2; ++family) {
      std::vector<std::size_t> chain;
      bool last_at_min = false, last_at_max = false;  // the last budget kept gives every hash exchange its min, max
      std::vector<Bytes> sizes = space.budgets;
      if (family == 0) {
        Policy flat = space.base;
        flat.in_flight = space.in_flight[k];
        flat.buffer = BufferSizing{BufferSizing::Kind::kFlat, 0};
        flat.capacity = CapacityRule::kFixedLen;
        sizes = space.under_doublings ? with_sizes_under_doublings(scenario, flat, space.flat_sizes, options.measure)
                                      : space.flat_sizes;
      }
      for (Bytes size : sizes) {
        Candidate c;
        c.policy = space.base;
        c.policy.in_flight = space.in_flight[k];
        if (family == 0) {
          c.policy.buffer = BufferSizing{BufferSizing::Kind::kFlat, size};
          c.policy.capacity = CapacityRule::kFixedLen;
        } else {
          c.policy.buffer = BufferSizing{BufferSizing::Kind::kBudget, 0, size, kBudgetChannelMin, kBudgetChannelMax};
          c.policy.capacity = CapacityRule::kBytes;
        }
        c.policy.name = candidate_name(c.policy);
        if (family == 1) {
          // Budgets that clamp every hash exchange alike send alike: of those at
          // the min, only the largest is kept; past the first at the max, none.
          const ChannelBuffers buffers = channel_buffers(scenario, c.policy);
          const bool at_min = buffers.at_min == buffers.hash_exchanges;
          if (last_at_max) break;
          if (last_at_min && at_min) {
            out.candidates.pop_back();
            chain.pop_back();
          }
          last_at_min = at_min;
          last_at_max = buffers.at_max == buffers.hash_exchanges;
        }
        c.memory = static_memory(scenario, c.policy, options.measure);
        c.feasible = c.memory <= options.budget;
        chain.push_back(out.candidates.size());
        out.candidates.push_back(std::move(c));
      }
      chains[k].push_back(std::move(chain));
    }
  }
  // First each chain's top feasible size: about the fastest the chain can be.
  // More in flight only while the last step paid (past the first two counts).
  // Then only the chains whose best so far is within `prune` of the fastest are
  // searched; the others' smaller sizes are slower still.
  const auto run = [&](const std::vector<const std::vector<std::size_t>*>& selected, ChainStep step) {
    const std::optional<std::size_t> fastest = fastest_seen(out.candidates);
    const double target = fastest ? out.candidates[*fastest].result->wall_s * (1 + options.margin) : 0;
    const std::exception_ptr failure = for_each_parallel(selected.size(), options.jobs, [&](std::size_t c) {
      search_chain(out.candidates, *selected[c], step, target, simulate);
    });
    if (failure) std::rethrow_exception(failure);
  };
  const auto fastest_of = [&](const std::vector<std::size_t>& chain) {
    double best = std::numeric_limits<double>::infinity();
    for (std::size_t i : chain) {
      if (out.candidates[i].result) best = std::min(best, out.candidates[i].result->wall_s);
    }
    return best;
  };
  if (options.grid) {
    std::vector<std::size_t> feasible;
    for (std::size_t i = 0; i < out.candidates.size(); ++i) {
      if (out.candidates[i].feasible) feasible.push_back(i);
    }
    const std::exception_ptr failure = for_each_parallel(feasible.size(), options.jobs, [&](std::size_t f) {
      Candidate& c = out.candidates[feasible[f]];
      c.result = simulate(c.policy);
    });
    if (failure) std::rethrow_exception(failure);
    return finish(out, options.margin);
  }
  std::vector<const std::vector<std::size_t>*> topped;
  double best_before = 0, best_last = 0;
  for (std::size_t k = 0; k < chains.size(); ++k) {
    if (k >= 2 && !(best_last < best_before * (1 - options.margin))) break;
    std::vector<const std::vector<std::size_t>*> these;
    for (const auto& chain : chains[k]) these.push_back(&chain);
    run(these, ChainStep::kTop);
    double best = std::numeric_limits<double>::infinity();
    for (const auto* chain : these) best = std::min(best, fastest_of(*chain));
    topped.insert(topped.end(), these.begin(), these.end());
    best_before = best_last;
    best_last = best;
  }
  const double close = 1 + std::max(options.margin, options.prune);
  // The chains within `close` of the fastest, and those beyond it.
  const auto split = [&] {
    double fastest = std::numeric_limits<double>::infinity();
    for (const auto* chain : topped) fastest = std::min(fastest, fastest_of(*chain));
    std::array<std::vector<const std::vector<std::size_t>*>, 2> close_far;
    for (const auto* chain : topped) close_far[fastest_of(*chain) <= fastest * close ? 0 : 1].push_back(chain);
    return close_far;
  };
  // A chain may be rising at its top: the size below shows it, and where it
  // does, its fastest lies below, and may be close to the fastest after all.
  run(topped, ChainStep::kBelowTop);
  run(topped, ChainStep::kFastest);
  std::vector<std::vector<std::size_t>> all_chains;
  for (const auto& per_count : chains) all_chains.insert(all_chains.end(), per_count.begin(), per_count.end());
  climb_to_fastest(out.candidates, all_chains, options.jobs, simulate);
  run(split()[0], ChainStep::kSearch);
  return finish(out, options.margin);
}

}  // namespace exsim::workflows
