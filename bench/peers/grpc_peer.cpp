// gRPC C++ (callback client, synchronous server with its default thread pool,
// one channel): each unary call carries one message as bytes, serialized into
// the call; the server answers with its length. Up to --in-flight calls are
// outstanding, each finished call starting the next from its callback.
#include <grpcpp/grpcpp.h>

#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>

#include "peer_harness.h"
#include "sink.grpc.pb.h"

namespace {

class SinkService final : public peers::Sink::Service {
  grpc::Status Send(grpc::ServerContext*, const peers::Chunk* chunk, peers::Ack* ack) override {
    ack->set_received(chunk->data().size());
    return grpc::Status::OK;
  }
};

void serve(const peers::Options&, const std::function<void(int)>& ready) {
  SinkService service;
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
  builder.SetMaxReceiveMessageSize(-1);
  builder.RegisterService(&service);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (!server || port == 0) throw std::runtime_error("could not listen on 127.0.0.1");
  ready(port);
  server->Wait();
}

// The calls still to make and those outstanding, shared with the callbacks.
class Lanes {
 public:
  Lanes(peers::Sink::Stub& stub, const peers::Chunk& request, std::int64_t calls)
      : stub_(stub), request_(request), left_(calls) {}

  void start(int lanes) {
    for (int i = 0; i < lanes; ++i) issue();
  }

  void wait() {
    std::unique_lock lock(mutex_);
    done_.wait(lock, [&] { return (outstanding_ == 0 && left_ == 0) || failed_; });
    if (failed_) throw std::runtime_error("a call failed: " + error_);
  }

 private:
  struct Call {
    grpc::ClientContext context;
    peers::Ack ack;
  };

  void issue() {
    {
      std::lock_guard lock(mutex_);
      if (left_ == 0 || failed_) return;
      --left_;
      ++outstanding_;
    }
    auto* call = new Call;
    stub_.async()->Send(&call->context, &request_, &call->ack, [this, call](grpc::Status status) {
      delete call;
      {
        std::lock_guard lock(mutex_);
        --outstanding_;
        if (!status.ok()) {
          failed_ = true;
          error_ = status.error_message();
        }
        // Notified under the lock: once wait() returns, no callback touches this.
        if (left_ == 0 || failed_) {
          done_.notify_one();
          return;
        }
      }
      issue();
    });
  }

  peers::Sink::Stub& stub_;
  const peers::Chunk& request_;
  std::mutex mutex_;
  std::condition_variable done_;
  std::int64_t left_;
  int outstanding_ = 0;
  bool failed_ = false;
  std::string error_;
};

void transfer(const peers::Options& options, int port, const std::function<void()>& started) {
  grpc::ChannelArguments arguments;
  arguments.SetMaxSendMessageSize(-1);
  auto channel = grpc::CreateCustomChannel("127.0.0.1:" + std::to_string(port), grpc::InsecureChannelCredentials(),
                                           arguments);
  auto stub = peers::Sink::NewStub(channel);
  {
    grpc::ClientContext context;
    peers::Ack ack;
    if (!stub->Send(&context, peers::Chunk{}, &ack).ok()) throw std::runtime_error("the first call failed");
  }
  started();
  peers::Chunk request;
  request.set_data(std::string(static_cast<std::size_t>(options.message), 'x'));
  Lanes lanes(*stub, request, options.calls());
  lanes.start(options.in_flight);
  lanes.wait();
}

}  // namespace

int main(int argc, char** argv) { return peers::run_peer("grpc", argc, argv, serve, transfer); }
