#include "cli/command_line.h"

#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "models/base/error.h"
#include "models/base/json_reader.h"

namespace exsim::cli {
namespace po = boost::program_options;

std::optional<po::variables_map> parse_command_line(const std::vector<std::string>& args,
                                                    const po::options_description& visible, const char* positional) {
  po::options_description all;
  all.add(visible);
  po::positional_options_description positions;
  if (positional) {
    po::options_description hidden;
    hidden.add_options()(positional, po::value<std::vector<std::string>>());
    all.add(hidden);
    positions.add(positional, -1);
  }
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(args).options(all).positional(positions).run(), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    throw UsageError(e.what());
  }
  if (vm.count("help")) {
    std::ostringstream text;
    text << visible;
    fmt::print("{}", text.str());
    return std::nullopt;
  }
  return vm;
}

std::string single_positional(const po::variables_map& vm, const char* name, const char* what) {
  if (!vm.count(name)) throw UsageError(fmt::format("missing {}", what));
  const auto values = vm[name].as<std::vector<std::string>>();
  if (values.size() != 1) throw UsageError(fmt::format("expected one {}, got {}", what, values.size()));
  return values[0];
}

int bounded_int(const boost::program_options::variables_map& vm, const char* name, int min, int max) {
  const int value = vm[name].as<int>();
  if (value < min || value > max) throw UsageError(fmt::format("--{} {}: expected {} to {}", name, value, min, max));
  return value;
}

std::string read_token_file(const std::string& path) {
  std::istringstream in(read_text_file(path, "the token file"));  // names a missing or unreadable file
  std::string token;
  if (!(in >> token)) throw UsageError(fmt::format("--token-file {}: holds no token (expected one word)", path));
  return token;
}

}  // namespace exsim::cli
