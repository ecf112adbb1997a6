#include "transport/agent/cluster_probes.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <climits>
#include <cstdio>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "models/base/json_reader.h"
#include "transport/rpc/peer_probe.h"
#include "transport/testbed/cpu_set.h"

extern char** environ;

namespace exsim::transport {
namespace {

// A private file for the child's output, removed by the caller.
std::string temporary_file(const char* what) {
  std::string path = fmt::format("/tmp/exsim-agent-{}-XXXXXX", what);
  const int fd = mkstemp(path.data());
  if (fd < 0) throw std::runtime_error(fmt::format("cannot create a file for the {}", what));
  close(fd);
  return path;
}

}  // namespace

nlohmann::json probe_reply(Host& host, const nlohmann::json& request) {
  ProbeOptions options;
  options.round_trips = request.value("round_trips", options.round_trips);
  options.bulk_bytes = request.value("bulk_bytes", options.bulk_bytes);
  const int to = request.at("to").get<int>();
  const PeerPath path = probe_peer(host, to, options);
  return {{"op", "probed"}, {"to", to}, {"round_trip_ms", path.round_trip_ms}, {"bytes_per_s", path.bytes_per_s}};
}

nlohmann::json calibrate_cpu_reply(const nlohmann::json& request) {
  char self[PATH_MAX] = {0};
  const ssize_t length = readlink("/proc/self/exe", self, sizeof self - 1);
  if (length <= 0) throw std::runtime_error("cannot find this agent's own binary to calibrate with");
  const std::string profile = temporary_file("profile");
  const std::string log = temporary_file("calibrate-log");
  // On every CPU the agent may use, as its exchanges run: a host's calls then
  // wake threads across its cores as a run's do (on one pinned core, calibrate's
  // default, a wake-up took 2 us where a run on two cores saw 8-36).
  std::vector<std::string> args = {self, "calibrate", "-o", profile, "--repetitions",
                                   std::to_string(request.value("repetitions", 5)), "--scale",
                                   fmt::format("{}", request.value("scale", 1.0)), "--cpus", "all"};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log.c_str(), O_WRONLY | O_APPEND, 0);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  pid_t pid = -1;
  const int rc = posix_spawn(&pid, self, &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  int status = 0;
  if (rc == 0) waitpid(pid, &status, 0);
  nlohmann::json reply{{"op", "calibrated"},
                       {"exit_code", rc != 0 ? -1 : WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status)},
                       {"profile", read_text_file(profile, "the calibration's profile")}};
  const std::string output = read_text_file(log, "the calibration's output");
  reply["log"] = output.size() > 4000 ? output.substr(output.size() - 4000) : output;
  std::remove(profile.c_str());
  std::remove(log.c_str());
  return reply;
}

int usable_cores() { return static_cast<int>(allowed_cpus().size()); }

std::string boot_id() {
  std::string id = read_text_file("/proc/sys/kernel/random/boot_id", "the kernel's boot id");
  while (!id.empty() && (id.back() == '\n' || id.back() == ' ')) id.pop_back();
  return id;
}

}  // namespace exsim::transport
