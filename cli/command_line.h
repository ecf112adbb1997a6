// Command-line parsing shared by the subcommands (Boost.Program_options).
#ifndef EXSIM_CLI_COMMAND_LINE_H_
#define EXSIM_CLI_COMMAND_LINE_H_

#include <optional>
#include <string>
#include <vector>

#include <boost/program_options.hpp>

namespace exsim::cli {

// Parses `args` against `visible` options, plus, when `positional` is given,
// any number of positional arguments collected under that name. Prints the
// help and returns nullopt for --help; throws UsageError on a bad command line.
std::optional<boost::program_options::variables_map> parse_command_line(
    const std::vector<std::string>& args, const boost::program_options::options_description& visible,
    const char* positional = nullptr);

// The help of a command: its caption (usage, what it does, examples, exit
// status), then each option as "-j, --jobs N  what it does (default ...)".
std::string render_help(const boost::program_options::options_description& visible);

// The single positional argument `name` (e.g. the scenario file), or UsageError.
std::string single_positional(const boost::program_options::variables_map& vm, const char* name,
                              const char* what);

// The integer option `name` (given or defaulted), or UsageError
// "--NAME VALUE: expected MIN to MAX" when out of range.
int bounded_int(const boost::program_options::variables_map& vm, const char* name, int min, int max);

// The file an output option names, or nullopt when it is absent or "-"
// (standard output, as for every file a command writes).
std::optional<std::string> file_option(const boost::program_options::variables_map& vm, const char* name);

// A results option: -o/--output FILE, or --json FILE, its earlier name.
struct ResultsOption {
  std::string flag;  // as given: "--output" or "--json"
  std::string path;
};
// The results file asked for, if any; UsageError when both names are given.
std::optional<ResultsOption> results_option(const boost::program_options::variables_map& vm);
// Declares --output (-o) and --json, `what` saying what goes there.
void add_results_option(boost::program_options::options_description& options, const std::string& what);


}  // namespace exsim::cli

#endif  // EXSIM_CLI_COMMAND_LINE_H_
