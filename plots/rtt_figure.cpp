#include "plots/rtt_figure.h"

#include <algorithm>
#include <cmath>
#include <set>

#include <fmt/format.h>

namespace exsim::report {
namespace {

// Past this many hosts, a host's RTTs run into their neighbours' (20 hosts:
// 400 numbers in a 560-pixel map): the map is drawn by placement group.
constexpr std::size_t kHostsDrawnOneByOne = 10;

// The RTT map by placement group: a block per pair of groups, coloured by the
// mean of its hosts' RTTs (a host's own excluded, unless it is alone in its
// group) and labelled with their range. A list of cells, as gnuplot's image
// reads one, with the groups' names for the axes.
std::string rtt_by_group(const Entry& e) {
  std::vector<std::string> groups;
  for (const auto& g : e.host_groups) {
    if (std::find(groups.begin(), groups.end(), g) == groups.end()) groups.push_back(g);
  }
  std::string csv = "column,row,mean_ms,range_ms,column_group,row_group\n";
  for (std::size_t r = 0; r < groups.size(); ++r) {
    for (std::size_t c = 0; c < groups.size(); ++c) {
      double least = INFINITY, most = 0, sum = 0;
      int count = 0;
      for (std::size_t a = 0; a < e.hosts.size(); ++a) {
        for (std::size_t b = 0; b < e.hosts.size(); ++b) {
          const bool alone = std::count(e.host_groups.begin(), e.host_groups.end(), groups[r]) == 1;
          if (e.host_groups[a] != groups[r] || e.host_groups[b] != groups[c] || (a == b && !alone)) continue;
          const double v = e.rtt_nominal_ms[a][b];
          least = std::min(least, v);
          most = std::max(most, v);
          sum += v;
          ++count;
        }
      }
      const std::string range = fmt::format("{:.2f}", least) == fmt::format("{:.2f}", most)
                                    ? fmt::format("{:.2f}", least)
                                    : fmt::format("{:.2f}-{:.2f}", least, most);
      csv += fmt::format("{},{},{:.4g},{},{},{}\n", c, r, sum / count, range, csv_field(groups[c]), csv_field(groups[r]));
    }
  }
  return csv;
}

}  // namespace

Figure rtt_figure(const ReportInput& in) {
  Figure figure{"rtt_heatmap", "Round-trip times between hosts", ""};
  for (std::size_t i = 0; i < in.entries.size(); ++i) {
    const Entry& e = in.entries[i];
    if (e.rtt_nominal_ms.empty() || e.rtt_nominal_ms.size() != e.hosts.size()) continue;
    if (e.hosts.size() > kHostsDrawnOneByOne && e.host_groups.size() == e.hosts.size()) {
      const auto groups = std::set<std::string>(e.host_groups.begin(), e.host_groups.end()).size();
      figure = {"rtt_groups",
                fmt::format("Round-trip times between placement groups: {} hosts in {} group{}, each block's range",
                            e.hosts.size(), groups, groups == 1 ? "" : "s"),
                rtt_by_group(e)};
    } else {
      std::string csv = "rtt_ms";
      for (const auto& h : e.hosts) csv += fmt::format(",{}", csv_field(h));
      csv += "\n";
      for (std::size_t a = 0; a < e.hosts.size(); ++a) {
        csv += csv_field(e.hosts[a]);
        for (double v : e.rtt_nominal_ms[a]) csv += fmt::format(",{:.4g}", v);
        csv += "\n";
      }
      figure.csv = csv;
    }
    const bool differ = std::any_of(in.entries.begin(), in.entries.end(), [&](const Entry& other) {
      return !other.rtt_nominal_ms.empty() && other.rtt_nominal_ms != e.rtt_nominal_ms;
    });
    if (differ) figure.title += fmt::format(" of result #{} ({}); the results' RTTs differ", i + 1, e.label);
    return figure;
  }
  return figure;
}

}  // namespace exsim::report
