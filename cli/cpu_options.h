// --cpus LIST, as calibrate and validate take it: which CPUs the real exchange
// runs on when every emulated host shares this machine (transport/testbed).
#ifndef EXSIM_CLI_CPU_OPTIONS_H_
#define EXSIM_CLI_CPU_OPTIONS_H_

#include <string>

#include <boost/program_options.hpp>

namespace exsim::cli {

void add_cpus_option(boost::program_options::options_description& options);

// The CPUs --cpus names, or by default the quietest one this process may use.
// Throws UsageError for a bad list.
std::vector<int> chosen_cpus(const boost::program_options::variables_map& vm);

// Runs this process, and the agents it starts, on `cpus`, and says so on
// stderr as `command`. Call it before any thread starts.
void pin_to(const std::vector<int>& cpus, const char* command);

// --let-cores-sleep, for work on agents a hosts file lists (run, calibrate and
// validate --hosts): by default the agents hold their machines' cores out of
// deep idle states (transport/testbed/awake_cores.h), as the model has them.
void add_let_cores_sleep_option(boost::program_options::options_description& options);
// Whether the agents are to hold their cores awake; throws UsageError for
// --let-cores-sleep without --hosts.
bool hold_cores_awake(const boost::program_options::variables_map& vm);

}  // namespace exsim::cli

#endif  // EXSIM_CLI_CPU_OPTIONS_H_
