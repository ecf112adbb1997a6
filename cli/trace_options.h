// --trace FILE and --trace-events N, as simulate and run take them.
#ifndef EXSIM_CLI_TRACE_OPTIONS_H_
#define EXSIM_CLI_TRACE_OPTIONS_H_

#include <cstddef>
#include <optional>
#include <string>

#include <boost/program_options.hpp>

#include "cli/output_files.h"

namespace exsim {
class Trace;
}

namespace exsim::cli {

void add_trace_options(boost::program_options::options_description& options);

// The span budget when --trace is given (its file then one of `outputs`), else nullopt.
std::optional<std::size_t> trace_budget(const boost::program_options::variables_map& vm, OutputFiles& outputs);

// Puts the trace into --trace's output; returns the line that says how much of it was kept.
std::string put_trace(const boost::program_options::variables_map& vm, OutputFiles& outputs, const Trace& trace,
                      const std::string& source);

}  // namespace exsim::cli

#endif  // EXSIM_CLI_TRACE_OPTIONS_H_
