#include "sim/exchange/rpc_transport.h"

#include <algorithm>

#include "sim/exchange/receiver.h"
#include "sim/exchange/sender.h"

namespace exsim::sim {

RpcTransport::RpcTransport(ModelContext& context)
    : context_(context),
      hosts_(static_cast<int>(context.scenario.cluster.hosts.size())),
      on_connection_(static_cast<std::size_t>(hosts_) * static_cast<std::size_t>(hosts_), 0),
      service_(static_cast<std::size_t>(hosts_)) {
  // Absent: one per core of the host, as Impala has (the cluster's cores, even
  // where a calibrated profile has every emulated host share one machine's).
  const int threads = context.scenario.costs.service_threads > 0 ? context.scenario.costs.service_threads
                                                                   : context.scenario.cluster.cores_per_host;
  for (auto& s : service_) s.free = threads;
  auto line_for = [&](SimTime delay) {
    auto& line = lines_[delay];
    if (!line) line = std::make_unique<DelayLine>(context_.simulator, delay);
    return line.get();
  };
  for (int from = 0; from < hosts_; ++from) {
    for (int to = 0; to < hosts_; ++to) {
      // After its last byte has left: half the RTT plus the software latency to arrive.
      const SimTime arrival = context_.rtt(from, to) / 2 + context_.rates.rpc_latency;
      if (from == to) {
        local_arrival_.push_back(line_for(arrival));
      } else {
        context_.network.set_delivery_delay(from, to, arrival);
      }
      response_delay_.push_back(context_.rtt(from, to) / 2);
      arrival_delay_.push_back(arrival);
    }
  }
}

void RpcTransport::issue(Rpc* rpc) {
  rpc->issued = context_.simulator.now();
  rpc->stage = Rpc::Stage::kArriving;
  ++on_connection_[static_cast<std::size_t>(rpc->from_host * hosts_ + rpc->to_host)];
  if (rpc->from_host == rpc->to_host) {
    // Same process: through the host's own RPC port, never through the NIC.
    local_arrival_[static_cast<std::size_t>(rpc->from_host)]->schedule(this, tag_of(rpc));
    return;
  }
  context_.network.send(rpc->from_host, rpc->to_host, static_cast<double>(rpc->wire_bytes), this, tag_of(rpc));
}

void RpcTransport::take_service_thread(Rpc* rpc) {
  ServiceThreads& s = service_[static_cast<std::size_t>(rpc->to_host)];
  if (s.free == 0) {
    rpc->waited = true;
    s.waiting.push(rpc);
    return;
  }
  --s.free;
  serve(rpc);
}

void RpcTransport::serve(Rpc* rpc) {
  rpc->on_service_thread = true;
  rpc->receiver->on_arrival(rpc);
}

void RpcTransport::free_service_thread(int host) {
  ServiceThreads& s = service_[static_cast<std::size_t>(host)];
  if (s.waiting.empty()) {
    ++s.free;
    return;
  }
  Rpc* next = s.waiting.pop();
  // The next two to be served: waiting calls were written long ago, and at
  // millions in flight their records are out of every cache.
  for (std::size_t i = 0; i < std::min<std::size_t>(2, s.waiting.size()); ++i) __builtin_prefetch(s.waiting.at(i));
  serve(next);
}

void RpcTransport::leave_service_thread(Rpc* rpc) {
  rpc->on_service_thread = false;
  free_service_thread(rpc->to_host);
}

void RpcTransport::start_receiver_work(Rpc* rpc, SimTime work) {
  rpc->stage = Rpc::Stage::kReceiverWork;
  context_.cpu_pool(rpc->to_host).start(work, this, tag_of(rpc));
}

void RpcTransport::respond(Rpc* rpc) {
  const SimTime now = context_.simulator.now();
  const SimTime half_rtt = response_delay_[static_cast<std::size_t>(rpc->to_host * hosts_ + rpc->from_host)];
  --on_connection_[static_cast<std::size_t>(rpc->from_host * hosts_ + rpc->to_host)];
  const SimTime arrival = arrival_delay_[static_cast<std::size_t>(rpc->from_host * hosts_ + rpc->to_host)];
  const SimTime out = rpc->arrived - rpc->issued;
  const CallParts parts{std::max<SimTime>(0, out - arrival), std::min(out, arrival),
                        now - rpc->arrived - rpc->held_for, rpc->held_for, half_rtt};
  if (!rpc->eos) {
    context_.rpc_network_ns.add(parts.network_time());
    context_.rpc_receiver_ns.add(parts.receiver_time());
  }
  rpc->sender->on_response_time(*rpc, now + half_rtt, parts);
  pool_.release(rpc);
}

void RpcTransport::on_event(std::uint64_t tag) {
  Rpc* rpc = reinterpret_cast<Rpc*>(tag);
  switch (rpc->stage) {
    case Rpc::Stage::kArriving:
      rpc->arrived = context_.simulator.now();
      take_service_thread(rpc);
      break;
    case Rpc::Stage::kReceiverWork: {
      // After the call's batch is queued and its response sent (which frees its
      // record), the thread takes the next call.
      const bool held = rpc->on_service_thread;
      const int host = rpc->to_host;
      rpc->receiver->on_work_done(rpc);
      if (held) free_service_thread(host);
      break;
    }
  }
}

}  // namespace exsim::sim
