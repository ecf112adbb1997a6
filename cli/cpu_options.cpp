#include "cli/cpu_options.h"

#include <fmt/format.h>

#include "models/base/error.h"
#include "transport/testbed/cpu_set.h"

namespace exsim::cli {
namespace po = boost::program_options;

void add_cpus_option(po::options_description& options) {
  options.add_options()("cpus", po::value<std::string>()->value_name("LIST"),
                        "CPUs the real exchange runs on, e.g. 1, 0-3 or all (default: the quietest one this process "
                        "may use; the model then gives every emulated host that one core)");
}

std::vector<int> chosen_cpus(const po::variables_map& vm) {
  if (vm.count("cpus")) return transport::parse_cpu_list(vm["cpus"].as<std::string>(), "--cpus");
  const std::vector<int> allowed = transport::allowed_cpus();
  return {transport::quietest_cpu(allowed)};
}

void pin_to(const std::vector<int>& cpus, const char* command) {
  const std::vector<int> allowed = transport::allowed_cpus();
  transport::pin_process(cpus);
  fmt::print(stderr, "{}: the real exchange runs on CPU {} (of {}), which the model gives every emulated host\n",
             command, transport::cpu_list_text(cpus), transport::cpu_list_text(allowed));
}

void add_let_cores_sleep_option(po::options_description& options) {
  options.add_options()("let-cores-sleep",
                        "with --hosts: leave the agents' cores free to enter deep idle states (by default each agent "
                        "holds its machine's cores awake while it serves, as the model has them: a call or ping that "
                        "finds a core asleep waits for it to wake)");
}

bool hold_cores_awake(const po::variables_map& vm) {
  if (vm.count("let-cores-sleep") && !vm.count("hosts")) {
    throw UsageError("--let-cores-sleep applies only with --hosts FILE (this machine's agents are not asked to hold its cores)");
  }
  return vm.count("hosts") && !vm.count("let-cores-sleep");
}

}  // namespace exsim::cli
