// exsim: predicts what a change to a distributed query engine's data exchange
// will do. One binary, one subcommand per job.
#include <algorithm>
#include <csignal>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <unistd.h>

#include "cli/commands.h"
#include "models/base/error.h"
#include "models/base/json_reader.h"

namespace {

constexpr const char* kUsage =
    "usage: exsim <command> [options]\n"
    "\n"
    "commands:\n"
    "  simulate   predict wall-clock, RPCs, bytes, CPU and sender memory of a scenario's policies\n"
    "  run        run a scenario's policies on the real exchange (agent processes) and measure the same\n"
    "  agent      serve one host of a real run for a coordinator ('exsim run --hosts')\n"
    "  calibrate  measure this machine's costs through the real exchange: a costs profile\n"
    "  validate   run scenarios both simulated and for real; the model's error against thresholds\n"
    "  advise     the sizing policy to take within a memory budget (the least memory within a margin\n"
    "             of the fastest), searched in a few simulations\n"
    "  sweep      simulate every combination of --vary values, in parallel or in shards (JSON Lines)\n"
    "  report     a capacity-planning report (HTML with plots, Markdown, CSV) from results files\n"
    "  diff       what changed between two results files, per policy and per exchange\n"
    "  import-profile  a scenario from an Impala query profile (text form), assumptions noted\n"
    "\n"
    "Run 'exsim <command> --help' (or 'exsim help <command>') for a command's options,\n"
    "and 'exsim --version' for the version.\n";

// The commands, by name.
struct Command {
  const char* name;
  int (*run)(const std::vector<std::string>&);
};
constexpr Command kCommands[] = {
    {"simulate", exsim::cli::simulate_command},   {"run", exsim::cli::run_command},
    {"agent", exsim::cli::agent_command},         {"calibrate", exsim::cli::calibrate_command},
    {"validate", exsim::cli::validate_command},   {"sweep", exsim::cli::sweep_command},
    {"report", exsim::cli::report_command},       {"import-profile", exsim::cli::import_profile_command},
    {"advise", exsim::cli::advise_command},       {"diff", exsim::cli::diff_command},
};

// Ctrl-C, said: a command that stops without a word looks like one that
// finished. Outputs are written only at the end, each to a temporary file
// renamed into place (write_files_atomically), so none is left half-written;
// the status is the one a shell gives an interrupted command, 128 + SIGINT.
// (`sweep` keeps what finished and says so itself; an `agent` is its
// coordinator's to stop.)
char interrupted_message[160];
std::size_t interrupted_length = 0;

extern "C" void say_interrupted(int) {
  (void)!write(STDERR_FILENO, interrupted_message, interrupted_length);
  _exit(130);
}

void say_when_interrupted(const std::string& command) {
  if (command == "agent") return;
  const int n = std::snprintf(interrupted_message, sizeof interrupted_message,
                              "exsim %s: interrupted; no output written\n", command.c_str());
  interrupted_length = n > 0 ? std::min(static_cast<std::size_t>(n), sizeof interrupted_message - 1) : 0;
  std::signal(SIGINT, say_interrupted);
}

}  // namespace

int main(int argc, char** argv) {
  using namespace exsim::cli;
  std::vector<std::string> args(argv + 1, argv + argc);
  // exsim help CMD [SUB]: that command's help, as CMD [SUB] --help prints it.
  if (args.size() >= 2 && args[0] == "help") {
    args.erase(args.begin());
    args.push_back("--help");
  }
  if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    std::fputs(kUsage, args.empty() ? stderr : stdout);
    return args.empty() ? kExitBadInput : kExitOk;
  }
  if (args[0] == "--version" || args[0] == "version") {
    fmt::print("exsim {}\n", EXSIM_VERSION);
    return kExitOk;
  }
  const std::string command = args[0];
  args.erase(args.begin());
  const Command* found = nullptr;
  for (const Command& c : kCommands) {
    if (command == c.name) found = &c;
  }
  if (!found) {
    std::vector<std::string> names;
    for (const Command& c : kCommands) names.emplace_back(c.name);
    const std::string hint = exsim::closest_name(command, names);
    fmt::print(stderr, "exsim: unknown command '{}'{}\n\n{}", command,
               hint.empty() ? "" : fmt::format(" (did you mean '{}'?)", hint), kUsage);
    return kExitBadInput;
  }
  say_when_interrupted(command);
  try {
    return found->run(args);
  } catch (const exsim::InputError& e) {
    fmt::print(stderr, "{}\n", e.what());
    return kExitBadInput;
  } catch (const exsim::UsageError& e) {
    fmt::print(stderr, "exsim {}: {}\nRun 'exsim {} --help' for usage.\n", command, e.what(), command);
    return kExitBadInput;
  } catch (const std::exception& e) {
    fmt::print(stderr, "exsim {}: {}\n", command, e.what());
    return kExitFailure;
  }
}
