#include "transport/exchange/local_cluster.h"

#include <fmt/format.h>

#include "models/rules/partitioning.h"
#include "transport/data/row_generator.h"
#include "transport/exchange/exchange_part.h"

namespace exsim::transport {

LocalCluster::LocalCluster(const Scenario& scenario, bool delay_line, bool nic_cap) : scenario_(scenario) {
  const int n = static_cast<int>(scenario.cluster.hosts.size());
  for (int h = 0; h < n; ++h) {
    Host::Options options;
    options.index = h;
    options.hosts = n;
    if (nic_cap) options.nic_bytes_per_s = scenario.cluster.nic_gbps * 1e9 / 8;
    if (delay_line) {
      for (int from = 0; from < n; ++from) {
        options.one_way_delay.push_back(std::chrono::nanoseconds(scenario.cluster.rtt.rtt(from, h) / 2));
      }
    }
    hosts_.push_back(std::make_unique<Host>(options));
  }
  std::vector<asio::ip::tcp::endpoint> endpoints;
  for (auto& h : hosts_) endpoints.push_back(h->endpoint());
  for (auto& h : hosts_) h->connect(endpoints);
}

LocalCluster::~LocalCluster() {
  for (auto& h : hosts_) h->stop();
}

ExchangeOutcome LocalCluster::run_exchange(const Policy& policy, std::size_t query, int repetition,
                                           std::size_t exchange, RunStats& stats, std::chrono::seconds timeout) {
  PartSpec spec{query, repetition, exchange, next_run_++, std::chrono::steady_clock::now() + timeout,
                random_share_for(scenario_, policy, query, exchange)};
  for (auto& h : hosts_) h->set_failure_handler([&stats](const std::string& reason) { stats.fail(reason); });
  std::vector<std::unique_ptr<ExchangePart>> parts;
  for (auto& h : hosts_) parts.push_back(std::make_unique<ExchangePart>(*h, scenario_, policy, spec, stats));
  for (auto& p : parts) p->prepare();
  const auto start = std::chrono::steady_clock::now();
  for (auto& p : parts) p->start();
  bool ok = true;
  for (auto& p : parts) ok = p->wait() && ok;
  ExchangeOutcome outcome;
  outcome.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!ok) {
    for (auto& p : parts) p->cancel(stats.failure());
  }
  parts.clear();
  for (auto& h : hosts_) h->set_failure_handler({});  // `stats` belongs to the caller
  outcome.ok = ok && !stats.failed;
  outcome.error = stats.failure();
  if (stats.payload_compressed_in > 0) {
    outcome.lz4_ratio = static_cast<double>(stats.payload_compressed_out) / static_cast<double>(stats.payload_compressed_in);
  }
  return outcome;
}

}  // namespace exsim::transport
