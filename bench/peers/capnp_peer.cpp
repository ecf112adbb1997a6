// Cap'n Proto RPC (EzRpc, one connection): each call carries one message as
// Data, copied into the request; the server answers with its length and reads
// none of it. Up to --in-flight calls are outstanding, each finished call
// starting the next.
#include <capnp/ez-rpc.h>
#include <kj/async.h>

#include <functional>
#include <vector>

#include "peer_harness.h"
#include "sink.capnp.h"

namespace {

class SinkImpl final : public Sink::Server {
 protected:
  kj::Promise<void> send(SendContext context) override {
    context.getResults().setReceived(context.getParams().getData().size());
    return kj::READY_NOW;
  }
};

void serve(const peers::Options&, const std::function<void(int)>& ready) {
  capnp::EzRpcServer server(kj::heap<SinkImpl>(), "127.0.0.1", 0);
  auto& wait_scope = server.getWaitScope();
  ready(static_cast<int>(server.getPort().wait(wait_scope)));
  kj::NEVER_DONE.wait(wait_scope);
}

void transfer(const peers::Options& options, int port, const std::function<void()>& started) {
  capnp::EzRpcClient client("127.0.0.1", static_cast<unsigned>(port));
  auto& wait_scope = client.getWaitScope();
  Sink::Client sink = client.getMain<Sink>();
  sink.sendRequest().send().wait(wait_scope);  // connected and served once
  started();
  const std::vector<kj::byte> payload(static_cast<std::size_t>(options.message), 'x');
  std::int64_t issued = 0;
  std::function<kj::Promise<void>()> next = [&]() -> kj::Promise<void> {
    if (issued == options.calls()) return kj::READY_NOW;
    ++issued;
    auto request = sink.sendRequest();
    request.setData(kj::arrayPtr(payload.data(), payload.size()));
    return request.send().then([&](auto&&) { return next(); });
  };
  kj::Vector<kj::Promise<void>> lanes;
  for (int i = 0; i < options.in_flight; ++i) lanes.add(next());
  kj::joinPromises(lanes.releaseAsArray()).wait(wait_scope);
}

}  // namespace

int main(int argc, char** argv) { return peers::run_peer("capnp", argc, argv, serve, transfer); }
