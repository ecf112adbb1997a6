#include "transport/exchange/exchange_part.h"

#include <algorithm>
#include <thread>

#include <fmt/format.h>

#include "models/rules/partitioning.h"
#include "models/rules/scan_feed.h"
#include "transport/data/row_generator.h"
#include "transport/exchange/receiver_side.h"
#include "transport/exchange/sender_side.h"

namespace exsim::transport {

ExchangePart::ExchangePart(Host& host, const Scenario& scenario, const Policy& policy, const PartSpec& spec,
                           RunStats& stats)
    : host_(host),
      scenario_(scenario),
      policy_(policy),
      exchange_(scenario.queries[spec.query].exchanges[spec.exchange]),
      spec_(spec),
      stats_(stats) {}

ExchangePart::~ExchangePart() {
  if (started_ && !finished_) cancel("the exchange part was torn down before it finished");
  for (auto& s : senders_) {
    // A sender of a failed run may still have calls queued or unanswered: keep
    // it (and the buffers those calls point into) until the host stops.
    if (stats_.failed) {
      s->join();
      s->detach();
      host_.retire(std::shared_ptr<SenderInstance>(s.release()));
    }
  }
  senders_.clear();
  if (registered_) host_.remove_target(spec_.run);
  receivers_.reset();
}

void ExchangePart::prepare() {
  receivers_ = std::make_unique<ReceiverSide>(host_, exchange_, policy_, stats_);
  host_.add_target(spec_.run, receivers_.get());
  registered_ = true;
  const std::uint64_t seed = exchange_seed(scenario_, spec_.query, spec_.repetition, spec_.exchange);
  const auto shares = receiver_shares(exchange_, seed);
  const int count = exchange_.senders.instances();
  for (int s = 0; s < count; ++s) {
    if (exchange_.senders.host_of(s) != host_.index()) continue;
    SenderSetup setup;
    setup.run = spec_.run;
    setup.index = s;
    setup.rows = sender_rows(exchange_, s);
    setup.seed = sender_seed(seed, s);
    setup.random_share = spec_.random_share;
    setup.running = &senders_running_;
    setup.shares = shares;
    setup.deadline = spec_.deadline;
    setup.scan = scan_shape(scenario_, exchange_, setup.rows);
    senders_.push_back(std::make_unique<SenderInstance>(host_, exchange_, policy_, setup, stats_));
  }
}

void ExchangePart::start() {
  started_ = true;
  receivers_->start();
  senders_running_.add(static_cast<int>(senders_.size()));
  for (auto& s : senders_) s->start();
}

bool ExchangePart::wait() {
  // Woken by the last sender's end; every 100 ms it looks for a failure
  // reported elsewhere (another host, the reactor), which does not wake it.
  while (!senders_running_.wait_until(
      std::min(spec_.deadline, std::chrono::steady_clock::now() + std::chrono::milliseconds(100)))) {
    if (stats_.failed || std::chrono::steady_clock::now() > spec_.deadline) {
      for (auto& s : senders_) s->cancel(stats_.failed ? stats_.failure() : "deadline passed");
    }
  }
  bool ok = true;
  for (auto& s : senders_) {
    ok = s->join() && ok;
    stats_.peak_in_flight = std::max(stats_.peak_in_flight.load(), s->peak_in_flight());
  }
  ok = ok && receivers_->wait(spec_.deadline);
  finished_ = true;
  if (!ok && !stats_.failed) {
    stats_.fail(fmt::format("host {}: exchange {} did not finish by its deadline", host_.index(), exchange_.id));
  }
  return ok && !stats_.failed;
}

void ExchangePart::cancel(const std::string& reason) {
  if (!stats_.failed) stats_.fail(reason);
  for (auto& s : senders_) s->cancel(reason);
  if (receivers_) receivers_->cancel();
}

}  // namespace exsim::transport
