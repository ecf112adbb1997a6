// The real exchange on loopback: 3 hosts, every partitioning kind, 1 and 2 RPCs
// in flight. Every row arrives (checksums verified on every batch), the
// in-flight bound holds, and a slow consumer defers calls. Bounded in time.
#include <doctest/doctest.h>

#include <poll.h>

#include <chrono>
#include <cstring>
#include <mutex>
#include <thread>

#include <asio/write.hpp>

#include "tests/test_util.h"
#include "transport/exchange/local_cluster.h"
#include "transport/rpc/host.h"
#include "transport/wire/frame.h"

namespace exsim::transport {
namespace {

using namespace std::chrono_literals;

const char* kThreeHosts = R"({"name": "three", "seed": 3,
  "cluster": {"hosts": 3, "rtt_ms": {"same_group": 0.2}},
  "mt_dop": 2,
  "policies": {"p": {}},
  "workload": {"queries": [{"name": "q", "exchanges": [
    {"id": "h", "kind": "hash", "rows": 60000, "row": {"fixed_bytes": 24, "varlen_bytes": {"dist": "uniform", "mean": 16, "max": 48}},
     "lz4_ratio": 0.5, "skew": 0.5},
    {"id": "b", "kind": "broadcast", "rows": 8000, "row": {"fixed_bytes": 40}, "lz4_ratio": 0.6,
     "receivers": {"hosts": "all", "per_host": 1}},
    {"id": "r", "kind": "random", "rows": 20000, "row": {"fixed_bytes": 32}, "lz4_ratio": 0.7},
    {"id": "m", "kind": "merge", "rows": 10000, "row": {"fixed_bytes": 16}, "lz4_ratio": 1.0}]}]}})";

TEST_CASE("every partitioning kind delivers every row over loopback, within the in-flight bound") {
  for (int in_flight : {1, 2}) {
    CAPTURE(in_flight);
    const Scenario s = test::scenario_from(kThreeHosts, {"policies.p.in_flight=" + std::to_string(in_flight)});
    LocalCluster cluster(s, /*delay_line=*/true);
    const auto& q = s.queries[0];
    for (std::size_t x = 0; x < q.exchanges.size(); ++x) {
      CAPTURE(q.exchanges[x].id);
      RunStats stats(3);
      const ExchangeOutcome outcome = cluster.run_exchange(s.policies[0], 0, 0, x, stats, 60s);
      REQUIRE_MESSAGE(outcome.ok, outcome.error);
      const std::int64_t copies = q.exchanges[x].kind == PartitionKind::kBroadcast ? 3 : 1;
      CHECK(stats.rows_delivered == q.exchanges[x].rows * copies);
      CHECK(stats.peak_in_flight.load() <= in_flight);
      CHECK(stats.peak_in_flight.load() >= 1);
      CHECK(stats.rpcs > 0);
      CHECK(stats.eos_rpcs == q.exchanges[x].senders.instances() * q.exchanges[x].receivers.instances());
      CHECK(stats.calls.network_ns.count() == stats.rpcs);
      CHECK(stats.calls.receiver_ns.count() == stats.rpcs);
      // Half the 0.2 ms RTT each way, at least.
      CHECK(stats.calls.network_ns.quantile(0.5) >= 0.2e6);
      if (q.exchanges[x].lz4_ratio < 1) CHECK(outcome.lz4_ratio == doctest::Approx(q.exchanges[x].lz4_ratio).epsilon(0.15));
    }
  }
}

TEST_CASE("a slow consumer defers calls and the run still delivers everything") {
  const Scenario s = test::scenario_from(kThreeHosts, {"policies.p.receiver_buffer=64K",
                                                        "workload.queries.0.exchanges.0.consume_rows_per_s=200000",
                                                        "workload.queries.0.exchanges.0.receivers={\"hosts\": [\"h0\"], \"per_host\": 1}"});
  LocalCluster cluster(s, /*delay_line=*/false);
  RunStats stats(3);
  const ExchangeOutcome outcome = cluster.run_exchange(s.policies[0], 0, 0, 0, stats, 60s);
  REQUIRE_MESSAGE(outcome.ok, outcome.error);
  CHECK(stats.rows_delivered == 60000);
  CHECK(stats.deferred_rpcs > 0);
  // The queue stays bounded: the 64 KiB soft limit plus one batch over it (about
  // 682 rows x 48 B deserialized), plus at most one deferred payload per sender
  // (6 senders, 1 in flight each, at most a batch's 4 B offsets and 24-72 B rows).
  CHECK(stats.receiver_peak[0] > 32 * 1024);
  CHECK(stats.receiver_peak[0] <= 65536 + 682 * 48 + 6 * (682 * 76));
  // Consumer-bound: 60000 rows at 200000 rows/s.
  CHECK(outcome.wall_s >= 0.29);
}

TEST_CASE("a NIC cap bounds a host's outbound bandwidth") {
  // One sender on h0 to one receiver on h1: 3000 rows of 1000 B, about 3 MB, through a
  // 0.05 Gbit/s (6.25 MB/s) NIC: at least 0.45 s, against tens of ms uncapped.
  const std::string json = R"({"name": "cap", "cluster": {"hosts": 2, "nic_gbps": 0.05, "rtt_ms": {"same_group": 0.05}},
    "policies": {"p": {"buffer": {"flat": "64K"}, "in_flight": 2, "compression": "none"}},
    "workload": {"queries": [{"name": "q", "exchanges": [{"id": "x", "kind": "hash", "rows": 3000,
      "row": {"fixed_bytes": 1000}, "lz4_ratio": 1, "senders": {"hosts": ["h0"], "per_host": 1},
      "receivers": {"hosts": ["h1"], "per_host": 1}}]}]}})";
  const Scenario s = test::scenario_from(json);
  RunStats capped_stats(2), free_stats(2);
  LocalCluster capped(s, /*delay_line=*/false, /*nic_cap=*/true);
  const ExchangeOutcome slow = capped.run_exchange(s.policies[0], 0, 0, 0, capped_stats, 60s);
  LocalCluster uncapped(s, /*delay_line=*/false, /*nic_cap=*/false);
  const ExchangeOutcome fast = uncapped.run_exchange(s.policies[0], 0, 0, 0, free_stats, 60s);
  REQUIRE(slow.ok);
  REQUIRE(fast.ok);
  const double seconds_at_rate = static_cast<double>(capped_stats.bytes_wire) / 6.25e6;
  CHECK(slow.wall_s >= seconds_at_rate * 0.9 - 0.05);  // one 256 KiB burst ahead at most
  CHECK(slow.wall_s <= seconds_at_rate * 3 + 0.5);  // not far stricter than the cap (loose: shared machines)
  CHECK(fast.wall_s < slow.wall_s / 2);
}

TEST_CASE("a NIC cap bounds a host's inbound bandwidth too") {
  // Two senders (h1, h2) into one receiver on h0, 1.5 MB each, every NIC at 6.25 MB/s.
  // Outbound alone would allow 0.24 s; h0's inbound NIC must carry both: at least 0.45 s.
  const std::string json = R"({"name": "cap-in", "cluster": {"hosts": 3, "nic_gbps": 0.05, "rtt_ms": {"same_group": 0.05}},
    "policies": {"p": {"buffer": {"flat": "64K"}, "in_flight": 2, "compression": "none"}},
    "workload": {"queries": [{"name": "q", "exchanges": [{"id": "x", "kind": "hash", "rows": 3000,
      "row": {"fixed_bytes": 1000}, "lz4_ratio": 1, "senders": {"hosts": ["h1", "h2"], "per_host": 1},
      "receivers": {"hosts": ["h0"], "per_host": 1}}]}]}})";
  const Scenario s = test::scenario_from(json);
  RunStats stats(3);
  LocalCluster cluster(s, /*delay_line=*/false, /*nic_cap=*/true);
  const ExchangeOutcome outcome = cluster.run_exchange(s.policies[0], 0, 0, 0, stats, 60s);
  REQUIRE(outcome.ok);
  CHECK(stats.rows_delivered == 3000);
  CHECK(outcome.wall_s >= static_cast<double>(stats.bytes_wire) / 6.25e6 * 0.85 - 0.05);
}

TEST_CASE("a stray on a data port, a hello without a nonce, a forged proof or a huge frame is dropped without failing the run") {
  std::mutex mutex;
  std::vector<std::string> failures;
  std::vector<std::unique_ptr<Host>> hosts;
  for (int i = 0; i < 2; ++i) {
    Host::Options options;
    options.index = i;
    options.hosts = 2;
    options.token = "secret";
    hosts.push_back(std::make_unique<Host>(options));
    hosts.back()->set_failure_handler([&](const std::string& reason) {
      std::lock_guard lock(mutex);
      failures.push_back(reason);
    });
  }
  asio::io_context io;
  auto stray = [&](const std::string& bytes) {
    asio::ip::tcp::socket socket(io);
    socket.connect(hosts[0]->endpoint());
    asio::write(socket, asio::buffer(bytes));
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    return socket;  // held open until the end of the test
  };
  const auto frame_of = [](FrameType type, const std::string& body) {
    FrameHeader h;
    h.type = type;
    h.body_length = static_cast<std::uint32_t>(body.size());
    std::string frame(FrameHeader::kSize, '\0');
    h.encode(frame.data());
    return frame + body;
  };
  auto garbage = stray("GET / HTTP/1.1\r\nHost: exsim.test\r\nAccept: */*\r\n\r\n");  // a frame header's size and more
  // A hello of the old kind (an index and a guessed token): no nonce.
  auto wrong = stray(frame_of(FrameType::kHello, std::string(4, '\1') + "guess!"));
  // A well-formed hello, then a proof forged without the token.
  Handshake impostor(Handshake::Side::kClient, "not the run's token", "data from host 1");
  auto forged = stray(frame_of(FrameType::kHello, impostor.opening()->body) +
                      frame_of(FrameType::kHelloProof, std::string(Handshake::kProofBytes, 'p')));
  // A frame announcing 16 MiB before any proof: closed at its header.
  auto huge = stray(frame_of(FrameType::kHello, "").substr(0, 8) + std::string("\0\0\0\1", 4) +
                    std::string(FrameHeader::kSize - 12, '\0'));
  const std::vector<asio::ip::tcp::endpoint> peers = {hosts[0]->endpoint(), hosts[1]->endpoint()};
  for (auto& h : hosts) h->connect(peers);
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  {
    std::lock_guard lock(mutex);
    CHECK_MESSAGE(failures.empty(), (failures.empty() ? "" : failures.front()));
  }
  // The strays were closed: each reads end of file (within a bound, not a
  // hang), after at most a handshake's answer.
  for (auto* socket : {&garbage, &wrong, &forged, &huge}) {
    asio::error_code error;
    std::size_t received = 0;
    for (int reads = 0; reads < 10 && !error; ++reads) {
      pollfd fd{socket->native_handle(), POLLIN, 0};
      REQUIRE(poll(&fd, 1, 5000) == 1);
      char bytes[512];
      received += socket->read_some(asio::buffer(bytes), error);
    }
    CHECK(error == asio::error::eof);
    CHECK(received <= FrameHeader::kSize + Handshake::kMaxFrameBody);
  }
  for (auto& h : hosts) h->set_failure_handler({});
  for (auto& h : hosts) h->stop();
}

}  // namespace
}  // namespace exsim::transport
