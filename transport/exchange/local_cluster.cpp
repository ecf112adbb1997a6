#include "transport/exchange/local_cluster.h"

#include <algorithm>
#include <thread>

#include <fmt/format.h>

#include "models/partitioning.h"
#include "transport/data/row_generator.h"
#include "transport/exchange/receiver_side.h"
#include "transport/exchange/sender_side.h"

namespace exsim::transport {

LocalCluster::LocalCluster(const Scenario& scenario, bool delay_line) : scenario_(scenario) {
  const int n = static_cast<int>(scenario.cluster.hosts.size());
  for (int h = 0; h < n; ++h) {
    Host::Options options;
    options.index = h;
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
                                           std::size_t exchange_index, RunStats& stats, std::chrono::seconds timeout) {
  const Exchange& x = scenario_.queries[query].exchanges[exchange_index];
  const std::uint64_t seed = exchange_seed(scenario_, query, repetition, exchange_index);
  const std::uint32_t run = next_run_++;
  const Calibration calibration = calibrate_random_share(x.row, x.lz4_ratio, seed);
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (auto& h : hosts_) {
    h->set_failure_handler([&stats](const std::string& reason) { stats.fail(reason); });
  }

  std::vector<std::unique_ptr<ReceiverSide>> receivers;
  for (auto& h : hosts_) {
    receivers.push_back(std::make_unique<ReceiverSide>(*h, x, policy, stats));
    h->add_target(run, receivers.back().get());
  }
  std::vector<std::unique_ptr<SenderInstance>> senders;
  const int count = x.senders.instances();
  const auto shares = receiver_shares(x, seed);
  for (int s = 0; s < count; ++s) {
    SenderSetup setup;
    setup.run = run;
    setup.index = s;
    setup.rows = x.rows / count + (s < x.rows % count ? 1 : 0);
    setup.seed = sender_seed(seed, s);
    setup.random_share = calibration.random_share;
    setup.shares = shares;
    setup.deadline = deadline;
    senders.push_back(std::make_unique<SenderInstance>(host(x.senders.host_of(s)), x, policy, setup, stats));
  }
  const auto start = std::chrono::steady_clock::now();
  for (auto& r : receivers) r->start();
  for (auto& s : senders) s->start();
  // Wait for the senders, cancelling them all as soon as anything fails, so a
  // failure ends the run at once instead of at the deadline.
  while (std::any_of(senders.begin(), senders.end(), [](auto& s) { return !s->done(); })) {
    if (stats.failed || std::chrono::steady_clock::now() > deadline) {
      for (auto& s : senders) s->cancel(stats.failed ? stats.failure() : "deadline passed");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  bool ok = true;
  for (auto& s : senders) {
    ok = s->join() && ok;
    stats.peak_in_flight = std::max(stats.peak_in_flight.load(), s->peak_in_flight());
  }
  for (auto& r : receivers) ok = (ok && r->wait(deadline)) && ok;
  ExchangeOutcome outcome;
  outcome.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!ok && !stats.failed) stats.fail(fmt::format("exchange {} did not finish within {} s", x.id, timeout.count()));
  if (stats.failed) {
    for (auto& s : senders) s->cancel(stats.failure());
    for (auto& r : receivers) r->cancel();
  }
  senders.clear();
  for (auto& h : hosts_) {
    h->remove_target(run);
    h->set_failure_handler({});  // `stats` belongs to the caller
  }
  receivers.clear();
  outcome.ok = !stats.failed;
  outcome.error = stats.failure();
  if (stats.payload_compressed_in > 0) {
    outcome.lz4_ratio = static_cast<double>(stats.payload_compressed_out) / static_cast<double>(stats.payload_compressed_in);
  }
  return outcome;
}

}  // namespace exsim::transport
