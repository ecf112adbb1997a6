// --trace FILE and --trace-events N, as simulate and run take them.
#ifndef EXSIM_CLI_TRACE_OPTIONS_H_
#define EXSIM_CLI_TRACE_OPTIONS_H_

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include <boost/program_options.hpp>

#include "cli/output_files.h"
#include "models/results/results.h"
#include "models/scenario/scenario.h"

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

// The tail `simulate` and `run` share: notes on standard error (results_notes),
// `heading` and the results table (each policy's channel buffer last) on
// standard output, then --json's results and --trace's trace (when
// `trace_events`, titled `source`) written together, then how much of the
// trace was kept.
void publish_results(const boost::program_options::variables_map& vm, OutputFiles& outputs,
                     const std::string& heading, const Scenario& scenario, const std::vector<Policy>& policies,
                     const std::vector<RunResult>& results,
                     const std::optional<std::size_t>& trace_events, const Trace& trace, const std::string& source);

}  // namespace exsim::cli

#endif  // EXSIM_CLI_TRACE_OPTIONS_H_
