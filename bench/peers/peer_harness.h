// What every peer program shares: its command line, a server in a child
// process (a real process on each side, as in `exsim run`), and one JSON line
// of results. A peer supplies the server loop and the client transfer; the
// harness times the transfer and collects each side's CPU from the kernel
// (getrusage for the client, wait4 for the server), so every peer is measured
// the same way.
//
// usage: <peer> [--bytes N] [--message N] [--in-flight K] [--variant NAME] [--delay-us D] [--pin C,S]
// prints: {"tool": ..., "variant": ..., "bytes": ..., "calls": ..., "wall_s": ...,
//          "client_cpu_s": ..., "server_cpu_s": ...}, and with --delay-us (the
// client's connection through a delay proxy, D each way; 0 gives the proxy's
// own cost): "one_way_delay_us"
// (achieved) and "proxy_cpu_s" (the proxy's own, charged to neither side).
// --pin C,S runs the client on CPU C and the server on CPU S, each side on a
// core of its own as two hosts would be (run-peers pins every tool alike).
#ifndef EXSIM_BENCH_PEERS_PEER_HARNESS_H_
#define EXSIM_BENCH_PEERS_PEER_HARNESS_H_

#include <cstdint>
#include <functional>
#include <string>

namespace peers {

struct Options {
  std::int64_t bytes = std::int64_t{1} << 30;  // moved in all, client to server
  std::int64_t message = std::int64_t{1} << 20;
  int in_flight = 2;
  std::string variant;  // peer-specific (e.g. Thrift's transport)
  std::int64_t delay_us = -1;  // one way, through a delay proxy (0: the proxy, no delay); -1: no proxy
  int client_cpu = -1;  // the CPU each side runs on (--pin); -1: wherever the kernel puts it
  int server_cpu = -1;
  std::int64_t calls() const { return (bytes + message - 1) / message; }
};

// The server: listens on 127.0.0.1 at an ephemeral port, reports the port
// through `ready`, then serves until the harness terminates it.
using Server = std::function<void(const Options&, const std::function<void(int port)>& ready)>;
// The client: connects to the port and makes `options.calls()` calls of
// `options.message` bytes with up to `in_flight` outstanding, returning when
// the last response has arrived. `started` is called once connected, which
// starts the clock.
using Client = std::function<void(const Options&, int port, const std::function<void()>& started)>;

// Parses argv, forks the server, runs the client, prints the results line.
// Returns the process exit code.
int run_peer(const char* tool, int argc, char** argv, const Server& server, const Client& client);

}  // namespace peers

#endif  // EXSIM_BENCH_PEERS_PEER_HARNESS_H_
