#include "peer_harness.h"

#include "delay_proxy.h"

#include <dlfcn.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>

namespace peers {
namespace {

double seconds(const timeval& t) { return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) * 1e-6; }
double cpu_s(const rusage& u) { return seconds(u.ru_utime) + seconds(u.ru_stime); }

// The leading integer of `text` and where it ends (0: none).
std::pair<long long, std::size_t> leading_integer(const std::string& text) {
  std::size_t end = 0;
  try {
    const long long value = std::stoll(text, &end);
    return {value, end};
  } catch (const std::exception&) {
    return {0, 0};
  }
}

// "1G", "1M", "16K" or plain bytes.
std::int64_t parse_size(const std::string& flag, const std::string& text) {
  const auto [value, end] = leading_integer(text);
  const std::string unit = text.substr(end);
  const std::int64_t scale = unit.empty() ? 1 : unit == "K" ? 1 << 10 : unit == "M" ? 1 << 20 : unit == "G" ? 1 << 30 : 0;
  if (end == 0 || scale == 0 || value <= 0) {
    throw std::invalid_argument(flag + ": expected a positive size such as 1G, 1M or 16K, got '" + text + "'");
  }
  return value * scale;
}

std::int64_t whole_number(const std::string& flag, const std::string& text, std::int64_t least, const char* what) {
  const auto [value, end] = leading_integer(text);
  if (end == 0 || end != text.size() || value < least || value > 1'000'000'000) {
    throw std::invalid_argument(flag + ": expected a whole number of " + what + ", got '" + text + "'");
  }
  return value;
}

Options parse(int argc, char** argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (i + 1 >= argc) throw std::invalid_argument(flag + ": expected a value after it");
    const std::string value = argv[++i];
    if (flag == "--bytes") {
      options.bytes = parse_size(flag, value);
    } else if (flag == "--message") {
      options.message = parse_size(flag, value);
    } else if (flag == "--in-flight") {
      options.in_flight = static_cast<int>(whole_number(flag, value, 1, "calls, 1 or more"));
    } else if (flag == "--variant") {
      options.variant = value;
    } else if (flag == "--delay-us") {
      options.delay_us = whole_number(flag, value, 0, "microseconds, 0 or more");
    } else if (flag == "--pin") {
      const auto comma = value.find(',');
      if (comma == std::string::npos) throw std::invalid_argument(flag + ": expected CLIENT_CPU,SERVER_CPU, got '" + value + "'");
      options.client_cpu = static_cast<int>(whole_number(flag, value.substr(0, comma), 0, "a CPU number"));
      options.server_cpu = static_cast<int>(whole_number(flag, value.substr(comma + 1), 0, "a CPU number"));
    } else {
      throw std::invalid_argument("unknown flag '" + flag +
                                  "' (expected --bytes, --message, --in-flight, --variant, --delay-us, --pin)");
    }
  }
  return options;
}

// The server's port from the pipe, or nothing if it does not come within 10 s.
std::optional<int> read_port(int fd) {
  pollfd p{fd, POLLIN, 0};
  if (poll(&p, 1, 10'000) != 1) return std::nullopt;
  int port = 0;
  if (read(fd, &port, sizeof port) != static_cast<ssize_t>(sizeof port) || port <= 0) return std::nullopt;
  return port;
}

// The server is ended by SIGTERM. Taken by a thread of its own (every other
// thread blocks it), it lets a preloaded allocation counter
// (libexsim_alloc_count.so) write the server's count before the process ends.
void end_on_sigterm() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);  // inherited by every thread started after
  std::thread([set] {
    int signal = 0;
    sigwait(&set, &signal);
    using Report = void (*)();
    if (auto report = reinterpret_cast<Report>(dlsym(RTLD_DEFAULT, "exsim_alloc_count_report"))) report();
    std::_Exit(0);
  }).detach();
}

// Keeps this process (and the threads it starts) on `cpu`; -1 leaves it free.
void pin_to(int cpu, const char* side) {
  if (cpu < 0) return;
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  if (sched_setaffinity(0, sizeof set, &set) != 0) {
    throw std::runtime_error(std::string("--pin: cannot run the ") + side + " on CPU " + std::to_string(cpu) +
                             ": " + std::strerror(errno));
  }
}

}  // namespace

int run_peer(const char* tool, int argc, char** argv, const Server& server, const Client& client) {
  Options options;
  try {
    options = parse(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: %s\n", tool, e.what());
    return 2;
  }
  int fds[2];
  if (pipe(fds) != 0) {
    std::perror("pipe");
    return 1;
  }
  // Fork before either side starts a thread: the child is a clean process.
  const pid_t child = fork();
  if (child < 0) {
    std::perror("fork");
    return 1;
  }
  if (child == 0) {
    close(fds[0]);
    end_on_sigterm();
    try {
      pin_to(options.server_cpu, "server");
      server(options, [&](int port) {
        if (write(fds[1], &port, sizeof port) != static_cast<ssize_t>(sizeof port)) std::_Exit(1);
      });
    } catch (const std::exception& e) {
      std::fprintf(stderr, "%s server: %s\n", tool, e.what());
      std::_Exit(1);
    }
    std::_Exit(0);
  }
  close(fds[1]);
  const std::optional<int> port = read_port(fds[0]);
  close(fds[0]);
  int code = 0;
  std::chrono::steady_clock::time_point start, end;
  std::optional<DelayProxy> proxy;
  Achieved achieved;
  if (!port) {
    std::fprintf(stderr, "%s: the server did not report its port within 10 s\n", tool);
    code = 1;
  } else {
    try {
      if (options.delay_us >= 0) proxy = start_delay_proxy(*port, options.delay_us);
      pin_to(options.client_cpu, "client");  // this thread and those it starts; the proxy's stay free
      client(options, proxy ? proxy->port : *port, [&] { start = std::chrono::steady_clock::now(); });
      end = std::chrono::steady_clock::now();
      if (proxy) achieved = stop_delay_proxy(*std::exchange(proxy, std::nullopt));
    } catch (const std::exception& e) {
      std::fprintf(stderr, "%s client: %s\n", tool, e.what());
      code = 1;
    }
    if (proxy) {  // the client failed with the proxy running: end it, leave no process behind
      try {
        stop_delay_proxy(*proxy);
      } catch (const std::exception&) {
      }
    }
  }
  kill(child, SIGTERM);
  int status = 0;
  rusage server_usage{};
  wait4(child, &status, 0, &server_usage);
  if (code != 0) return code;
  if (WIFEXITED(status) && WEXITSTATUS(status) != 0) {
    std::fprintf(stderr, "%s: the server failed (exit %d)\n", tool, WEXITSTATUS(status));
    return 1;
  }
  rusage client_usage{};
  getrusage(RUSAGE_SELF, &client_usage);
  std::printf(
      "{\"tool\": \"%s\", \"variant\": \"%s\", \"bytes\": %lld, \"message\": %lld, \"in_flight\": %d, \"calls\": %lld, "
      "\"wall_s\": %.6f, \"client_cpu_s\": %.6f, \"server_cpu_s\": %.6f",
      tool, options.variant.c_str(), static_cast<long long>(options.calls() * options.message),
      static_cast<long long>(options.message), options.in_flight, static_cast<long long>(options.calls()),
      std::chrono::duration<double>(end - start).count(), cpu_s(client_usage), cpu_s(server_usage));
  if (options.delay_us >= 0) {
    std::printf(", \"one_way_delay_us\": %.2f, \"proxy_cpu_s\": %.6f", achieved.mean_one_way_us, achieved.cpu_s);
  }
  std::printf("}\n");
  return 0;
}

}  // namespace peers
