#include "cli/trace_options.h"

#include <fmt/format.h>

#include "cli/command_line.h"
#include "cli/results_table.h"
#include "models/base/error.h"
#include "models/results/results.h"
#include "models/results/trace.h"
#include "models/rules/policy_notes.h"
#include "models/rules/sender_memory.h"

namespace exsim::cli {
namespace po = boost::program_options;

void add_trace_options(po::options_description& options) {
  options.add_options()
      ("trace", po::value<std::string>()->value_name("FILE"), "write a timeline of every policy's run to this file (Chrome trace event\n"
       "JSON, for Perfetto or chrome://tracing; the same spans simulated and measured)")
      ("trace-events", po::value<int>(), "spans the trace keeps at most (default 400000, about 40 MB);\n"
       "beyond, an even sample (docs/traces.md)");
}

std::optional<std::size_t> trace_budget(const po::variables_map& vm, OutputFiles& outputs) {
  if (!vm.count("trace")) {
    if (vm.count("trace-events")) throw UsageError("--trace-events applies only with --trace FILE");
    return std::nullopt;
  }
  outputs.writes("--trace", vm["trace"].as<std::string>());
  return vm.count("trace-events") ? static_cast<std::size_t>(bounded_int(vm, "trace-events", 100, 50'000'000))
                                  : Trace::kDefaultMaxEvents;
}

std::string put_trace(const po::variables_map& vm, OutputFiles& outputs, const Trace& trace, const std::string& source) {
  outputs.put("--trace", trace.to_json(source));
  return fmt::format("\ntrace: {} spans of {} kept (1 in {}), {}\n", trace.kept(), trace.offered(),
                     std::uint64_t{1} << trace.sampling_shift(), vm["trace"].as<std::string>());
}

void publish_results(const po::variables_map& vm, OutputFiles& outputs, const std::string& heading,
                     const Scenario& scenario, const std::vector<Policy>& policies,
                     const std::vector<RunResult>& results, const std::optional<std::size_t>& trace_events,
                     const Trace& trace, const std::string& source) {
  for (const auto& note : results_notes(scenario, policies, results)) fmt::print(stderr, "note: {}\n", note);
  std::vector<std::string> buffers;
  for (const auto& policy : policies) buffers.push_back(channel_buffers_text(channel_buffers(scenario, policy)));
  std::FILE* text = outputs.to_stdout() ? stderr : stdout;  // standard output may carry a file
  fmt::print(text, "{}\n\n", heading);
  fmt::print(text, "{}{}\n", render_results_table(results, buffers), kMemoryColumnsNote);
  if (const auto file = results_option(vm)) outputs.put(file->flag, results_to_json(results));
  const std::string traced = trace_events ? put_trace(vm, outputs, trace, source) : "";
  outputs.write();
  fmt::print(text, "{}", traced);
}

}  // namespace exsim::cli
