// Apache Thrift, TBinaryProtocol over a framed (--variant framed, the default)
// or buffered transport, TSimpleServer: each call carries one message as
// binary, copied into the frame; the server answers with its length. The
// synchronous client pipelines up to --in-flight calls with the generated
// send_/recv_ halves. Transports get a message size limit above the transfer's:
// Thrift 0.17 otherwise counts a framed connection's bytes against its 100 MB
// default and drops it (THRIFT-5371).
#include <thrift/TConfiguration.h>
#include <thrift/protocol/TBinaryProtocol.h>
#include <thrift/server/TSimpleServer.h>
#include <thrift/transport/TBufferTransports.h>
#include <thrift/transport/TServerSocket.h>
#include <thrift/transport/TSocket.h>

#include <climits>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>

#include "Sink.h"
#include "peer_harness.h"

namespace {

using namespace apache::thrift;

class SinkHandler final : public peers::SinkIf {
 public:
  int64_t send(const std::string& data) override { return static_cast<int64_t>(data.size()); }
};

std::shared_ptr<TConfiguration> roomy() { return std::make_shared<TConfiguration>(INT_MAX, INT_MAX); }

bool framed(const peers::Options& options) {
  if (options.variant.empty() || options.variant == "framed") return true;
  if (options.variant == "buffered") return false;
  throw std::invalid_argument("--variant: expected framed or buffered, got '" + options.variant + "'");
}

std::shared_ptr<transport::TTransport> wrap(bool is_framed, std::shared_ptr<transport::TTransport> socket) {
  if (is_framed) return std::make_shared<transport::TFramedTransport>(socket, roomy());
  return std::make_shared<transport::TBufferedTransport>(socket, transport::TBufferedTransport::DEFAULT_BUFFER_SIZE,
                                                         roomy());
}

class RoomyTransports final : public transport::TTransportFactory {
 public:
  explicit RoomyTransports(bool is_framed) : framed_(is_framed) {}
  std::shared_ptr<transport::TTransport> getTransport(std::shared_ptr<transport::TTransport> socket) override {
    socket->getConfiguration()->setMaxMessageSize(INT_MAX);
    socket->getConfiguration()->setMaxFrameSize(INT_MAX);
    return wrap(framed_, socket);
  }

 private:
  bool framed_;
};

class ReportPort final : public server::TServerEventHandler {
 public:
  ReportPort(std::shared_ptr<transport::TServerSocket> socket, std::function<void(int)> ready)
      : socket_(std::move(socket)), ready_(std::move(ready)) {}
  void preServe() override { ready_(socket_->getPort()); }

 private:
  std::shared_ptr<transport::TServerSocket> socket_;
  std::function<void(int)> ready_;
};

void serve(const peers::Options& options, const std::function<void(int)>& ready) {
  auto socket = std::make_shared<transport::TServerSocket>("127.0.0.1", 0);
  server::TSimpleServer server(std::make_shared<peers::SinkProcessor>(std::make_shared<SinkHandler>()), socket,
                               std::make_shared<RoomyTransports>(framed(options)),
                               std::make_shared<protocol::TBinaryProtocolFactory>());
  server.setServerEventHandler(std::make_shared<ReportPort>(socket, ready));
  server.serve();
}

void transfer(const peers::Options& options, int port, const std::function<void()>& started) {
  auto transport = wrap(framed(options), std::make_shared<transport::TSocket>("127.0.0.1", port, roomy()));
  peers::SinkClient client(std::make_shared<protocol::TBinaryProtocol>(transport));
  transport->open();
  client.send("");  // connected and served once
  started();
  const std::string payload(static_cast<std::size_t>(options.message), 'x');
  std::int64_t issued = 0;
  for (std::int64_t answered = 0; answered < options.calls(); ++answered) {
    while (issued < options.calls() && issued - answered < options.in_flight) {
      client.send_send(payload);
      ++issued;
    }
    if (client.recv_send() != options.message) throw std::runtime_error("the server counted a different length");
  }
  transport->close();
}

}  // namespace

int main(int argc, char** argv) { return peers::run_peer("thrift", argc, argv, serve, transfer); }
