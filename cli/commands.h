// The exsim subcommands. Each takes its arguments after the subcommand name
// and returns the process exit code.
#ifndef EXSIM_CLI_COMMANDS_H_
#define EXSIM_CLI_COMMANDS_H_

#include <string>
#include <vector>

namespace boost::program_options {
class options_description;
class variables_map;
}

namespace exsim::cli {

// Exit codes shared by every subcommand.
inline constexpr int kExitOk = 0;
inline constexpr int kExitThresholds = 1;  // validate: an error beyond the suite's thresholds
inline constexpr int kExitBadInput = 2;  // scenario, profile or command line
inline constexpr int kExitFailure = 3;   // I/O failure or internal error
// calibrate, validate: the machine was too busy or too noisy for what was
// measured to be trusted; no verdict, nothing written
inline constexpr int kExitNoVerdict = 4;

int simulate_command(const std::vector<std::string>& args);
int advise_command(const std::vector<std::string>& args);
int run_command(const std::vector<std::string>& args);
int agent_command(const std::vector<std::string>& args);
int calibrate_command(const std::vector<std::string>& args);
int validate_command(const std::vector<std::string>& args);
// validate's usage, help and options (validate_options.cpp).
boost::program_options::options_description validate_options();
int import_profile_command(const std::vector<std::string>& args);
// validate --impala-profile: the model replayed against an Impala profile.
int validate_impala_profile(const boost::program_options::variables_map& vm);
int sweep_command(const std::vector<std::string>& args);
// exsim sweep merge: a sharded sweep's files joined.
int sweep_merge_command(const std::vector<std::string>& args);
int report_command(const std::vector<std::string>& args);
int diff_command(const std::vector<std::string>& args);

}  // namespace exsim::cli

#endif  // EXSIM_CLI_COMMANDS_H_
