// Boost.Graph stays in this one file; nothing else includes it.
#include <limits>
#include <map>

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/dijkstra_shortest_paths.hpp>
#include <fmt/format.h>

#include "models/scenario/latency_matrix.h"

namespace exsim {

std::vector<std::vector<double>> topology_rtt_ms(const Topology& topology, const std::vector<std::string>& hosts,
                                                 double self_rtt_ms, std::string& error) {
  using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS, boost::no_property,
                                      boost::property<boost::edge_weight_t, double>>;
  std::map<std::string, int> index;
  for (const auto& h : hosts) index.emplace(h, static_cast<int>(index.size()));
  for (const auto& s : topology.switches) {
    if (!index.emplace(s, static_cast<int>(index.size())).second) {
      error = fmt::format("switch '{}' has the name of another node", s);
      return {};
    }
  }
  Graph graph(index.size());
  for (size_t i = 0; i < topology.links.size(); ++i) {
    const auto& link = topology.links[i];
    auto a = index.find(link.from), b = index.find(link.to);
    if (a == index.end() || b == index.end()) {
      error = fmt::format("links/{}: unknown node '{}' (not a host or switch)", i,
                          a == index.end() ? link.from : link.to);
      return {};
    }
    boost::add_edge(static_cast<size_t>(a->second), static_cast<size_t>(b->second), link.rtt_ms, graph);
  }
  std::vector<std::vector<double>> rtt(hosts.size(), std::vector<double>(hosts.size(), self_rtt_ms));
  std::vector<double> distance(index.size());
  for (size_t from = 0; from < hosts.size(); ++from) {
    boost::dijkstra_shortest_paths(graph, from, boost::distance_map(distance.data()));
    for (size_t to = 0; to < hosts.size(); ++to) {
      if (to == from) continue;
      if (distance[to] == std::numeric_limits<double>::max()) {
        error = fmt::format("hosts '{}' and '{}' are not connected", hosts[from], hosts[to]);
        return {};
      }
      rtt[from][to] = distance[to];
    }
  }
  return rtt;
}

}  // namespace exsim
