#include "transport/agent/agent_process.h"

#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "transport/testbed/cpu_set.h"

extern char** environ;

namespace exsim::transport {

using Clock = std::chrono::steady_clock;

AgentProcess spawn_agent(const std::string& binary, const std::string& token_file, const std::vector<int>& cpus) {
  int out[2];
  if (pipe(out) != 0) throw std::runtime_error("cannot create a pipe for an agent");
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
  posix_spawn_file_actions_addclose(&actions, out[0]);
  std::vector<std::string> args{binary, "agent", "--listen", "127.0.0.1:0", "--token-file", token_file};
  if (!cpus.empty()) {
    args.push_back("--cpus");
    args.push_back(cpu_list_text(cpus));
  }
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  AgentProcess agent;
  const int rc = posix_spawn(&agent.pid, binary.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(out[1]);
  if (rc != 0) {
    close(out[0]);
    throw std::runtime_error(fmt::format("cannot start an agent ({}): {}", binary, std::strerror(rc)));
  }
  std::string line;
  const auto deadline = Clock::now() + std::chrono::seconds(20);
  char c;
  while (line.find('\n') == std::string::npos && Clock::now() < deadline) {
    pollfd fd{out[0], POLLIN, 0};
    if (poll(&fd, 1, 100) <= 0) continue;
    if (read(out[0], &c, 1) != 1) break;
    line += c;
  }
  close(out[0]);
  unsigned port = 0;
  char address[64] = {0};
  if (std::sscanf(line.c_str(), "listening %63[^:]:%u", address, &port) != 2) {
    kill(agent.pid, SIGKILL);
    waitpid(agent.pid, nullptr, 0);
    throw std::runtime_error(fmt::format("agent (pid {}) did not report its port: '{}'", agent.pid, line));
  }
  agent.address = address;
  agent.port = static_cast<unsigned short>(port);
  return agent;
}

void stop_agents(const std::vector<AgentProcess>& agents, std::chrono::milliseconds own_exit,
                 std::chrono::milliseconds grace) {
  std::vector<bool> ended(agents.size(), false);
  const auto own_deadline = Clock::now() + own_exit;
  for (std::size_t i = 0; i < agents.size(); ++i) {
    if (agents[i].pid <= 0) continue;
    while (!(ended[i] = waitpid(agents[i].pid, nullptr, WNOHANG) != 0) && Clock::now() < own_deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
  }
  for (std::size_t i = 0; i < agents.size(); ++i) {
    if (agents[i].pid > 0 && !ended[i]) kill(agents[i].pid, SIGTERM);
  }
  const auto give_up = Clock::now() + grace;
  for (std::size_t i = 0; i < agents.size(); ++i) {
    const auto& a = agents[i];
    if (a.pid <= 0 || ended[i]) continue;
    while (waitpid(a.pid, nullptr, WNOHANG) == 0) {
      if (Clock::now() >= give_up) {
        kill(a.pid, SIGKILL);
        waitpid(a.pid, nullptr, 0);
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }
}

}  // namespace exsim::transport
