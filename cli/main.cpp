// exsim: predicts what a change to a distributed query engine's data exchange
// will do. One binary, one subcommand per job.
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "cli/commands.h"
#include "models/base/error.h"

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
    "  sweep      simulate every combination of --vary values, in parallel or in shards (JSON Lines)\n"
    "  report     a capacity-planning report (HTML with plots, Markdown, CSV) from results files\n"
    "  import-profile  a scenario from an Impala query profile (text form), assumptions noted\n"
    "\n"
    "Run 'exsim <command> --help' for a command's options.\n";

}  // namespace

int main(int argc, char** argv) {
  using namespace exsim::cli;
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.size() == 2 && args[0] == "help") args = {args[1], "--help"};  // exsim help CMD: that command's help
  if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    std::fputs(kUsage, args.empty() ? stderr : stdout);
    return args.empty() ? kExitBadInput : kExitOk;
  }
  const std::string command = args[0];
  args.erase(args.begin());
  try {
    if (command == "simulate") return simulate_command(args);
    if (command == "run") return run_command(args);
    if (command == "agent") return agent_command(args);
    if (command == "calibrate") return calibrate_command(args);
    if (command == "validate") return validate_command(args);
    if (command == "import-profile") return import_profile_command(args);
    if (command == "sweep") return sweep_command(args);
    if (command == "report") return report_command(args);
    fmt::print(stderr, "exsim: unknown command '{}'\n\n{}", command, kUsage);
    return kExitBadInput;
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
