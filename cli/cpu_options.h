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

}  // namespace exsim::cli

#endif  // EXSIM_CLI_CPU_OPTIONS_H_
