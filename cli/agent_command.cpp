// exsim agent --token-file F [--listen ADDRESS:PORT] [--cpus LIST]; exsim agent --new-token-file F

#include <boost/program_options.hpp>
#include <fmt/format.h>

#include "cli/command_line.h"
#include "cli/commands.h"
#include "models/base/error.h"
#include "transport/agent/agent.h"
#include "transport/agent/token_file.h"
#include "transport/net/endpoint_text.h"
#include "transport/testbed/cpu_set.h"

namespace exsim::cli {
namespace po = boost::program_options;

int agent_command(const std::vector<std::string>& args) {
  po::options_description visible(
      "usage: exsim agent --token-file F [--listen ADDRESS:PORT] [--idle-timeout S] [--cpus LIST] [--keep-serving]\n"
      "       exsim agent --new-token-file F\n\n"
      "Serves one host of a real exchange run for one `exsim run` coordinator, which must\n"
      "prove it holds the token in F (and the agent proves it back; the token never crosses\n"
      "the network). F must be readable by its owner alone and hold at least 128 bits\n"
      "(32 hexadecimal digits): --new-token-file writes such a file, to copy to every host.\n"
      "Prints \"listening ADDRESS:PORT\" once bound. Listens on loopback unless given an address.\n"
      "While its coordinator asks (run, calibrate and validate --hosts do, unless\n"
      "--let-cores-sleep), it holds this machine's cores out of deep idle states, as the\n"
      "model has them (/dev/cpu_dma_latency at 0; root only, else it says why).\n\n"
      "example, on each real host, for a coordinator's 'exsim run S --hosts FILE --token-file F':\n"
      "  exsim agent --token-file F --listen 0.0.0.0:7100\n\n"
      "Exit status: 0 shut down by its coordinator, 1 the coordinator gone or silent past\n"
      "--idle-timeout, 2 bad input.\n\noptions");
  visible.add_options()
      ("help,h", "print this help")
      ("listen", po::value<std::string>()->value_name("ADDRESS:PORT")->default_value("127.0.0.1:0"), "address and port to listen on (port 0: any)")
      ("token-file", po::value<std::string>()->value_name("FILE"), "file holding the shared token (required)")
      ("new-token-file", po::value<std::string>()->value_name("FILE"), "write a new random token to FILE (mode 600, never over a file) and exit")
      ("idle-timeout", po::value<int>()->value_name("SECONDS")->default_value(600), "exit after this many seconds without a coordinator message while no exchange runs")
      ("keep-serving", "after a coordinator's shutdown, listen for the next one on the same port (for validate --hosts, a run a coordinator); needs a fixed --listen port")
      ("cpus", po::value<std::string>()->value_name("LIST"), "run on these CPUs only, e.g. 1 or 0-3 (default: wherever the kernel puts the agent's threads)");
  const auto parsed = parse_command_line(args, visible);
  if (!parsed) return kExitOk;
  const po::variables_map& vm = *parsed;
  if (vm.count("new-token-file")) {
    const std::string path = vm["new-token-file"].as<std::string>();
    transport::write_new_token_file(path);
    fmt::print("wrote a new token to {} (mode 600): copy it to every agent's host and the coordinator's\n", path);
    return kExitOk;
  }
  if (!vm.count("token-file")) throw UsageError("--token-file is required: agents refuse coordinators without the token");
  transport::AgentOptions options;
  options.token = transport::read_token_file(vm["token-file"].as<std::string>());
  const std::string listen = vm["listen"].as<std::string>();
  const auto endpoint = transport::parse_endpoint(listen, /*any_port=*/true);
  if (const auto* problem = std::get_if<std::string>(&endpoint)) {
    throw UsageError(fmt::format("--listen {}: {}", listen, *problem));
  }
  options.listen_address = std::get<transport::EndpointText>(endpoint).address;
  options.listen_port = std::get<transport::EndpointText>(endpoint).port;
  options.idle_timeout = std::chrono::seconds(bounded_int(vm, "idle-timeout", 1, 86400));
  options.keep_serving = vm.count("keep-serving") > 0;
  if (options.keep_serving && options.listen_port == 0) {
    throw UsageError(fmt::format("--keep-serving needs a fixed port (--listen {} binds any): coordinators must find "
                                 "the agent at the same address each time",
                                 listen));
  }
  // Before the agent starts a thread: every thread it starts inherits the set.
  if (vm.count("cpus")) transport::pin_process(transport::parse_cpu_list(vm["cpus"].as<std::string>(), "--cpus"));
  return transport::run_agent(options);
}

}  // namespace exsim::cli
