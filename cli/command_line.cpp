#include "cli/command_line.h"

#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "models/base/error.h"
#include "models/base/json_reader.h"

namespace exsim::cli {
namespace po = boost::program_options;

namespace {

// "--name" for an option's long name.
std::vector<std::string> long_names(const po::options_description& visible) {
  std::vector<std::string> names;
  for (const auto& option : visible.options()) {
    if (!option->long_name().empty()) names.push_back("--" + option->long_name());
  }
  return names;
}

std::string unknown_option_message(const std::string& given, const po::options_description& visible) {
  const std::string hint = closest_name(given, long_names(visible));
  return fmt::format("unknown option {}{}", given,
                     hint.empty() ? " (see --help for the options)" : fmt::format(" (did you mean {}?)", hint));
}

// What an option's value must be, from the type it is read as.
std::string expected_value(const po::option_description* option) {
  if (option == nullptr) return "a valid value";
  const po::value_semantic* semantic = option->semantic().get();
  if (dynamic_cast<const po::typed_value<int>*>(semantic)) return "a whole number";
  if (dynamic_cast<const po::typed_value<double>*>(semantic)) return "a number";
  return "a valid value";
}

// The value given for `name` ("--timeout"), from `--timeout V` or `--timeout=V`; "" if not found.
std::string given_value(const std::string& name, const std::vector<std::string>& args) {
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i] == name && i + 1 < args.size()) return args[i + 1];
    if (args[i].rfind(name + "=", 0) == 0) return args[i].substr(name.size() + 1);
  }
  return "";
}

std::string invalid_value_message(const std::string& name, const std::vector<std::string>& args,
                                  const po::options_description& visible) {
  const std::string bare = name.rfind("--", 0) == 0 ? name.substr(2) : name;
  const po::option_description* option = visible.find_nothrow(bare, false);
  std::string value = given_value(name, args);
  if (value.empty() && option != nullptr) {  // given by its short name, -j
    const std::string short_name = option->canonical_display_name(po::command_line_style::allow_dash_for_short);
    if (short_name != name) value = given_value(short_name, args);
  }
  return fmt::format("{}{}: expected {}", name, value.empty() ? "" : " " + value, expected_value(option));
}

// What an option's value is called in the help: its own name (FILE, NAME),
// else N for a whole number, X for a number, VALUE otherwise.
std::string value_text(const po::option_description& option) {
  const po::value_semantic* semantic = option.semantic().get();
  if (semantic->max_tokens() == 0) return "";  // a switch
  const std::string shown = semantic->name();  // "arg", "arg (=300)", or the value's own name
  const std::string given = shown.substr(0, shown.find(" (="));
  if (given != "arg") return " " + given;
  std::string name = "VALUE";
  if (dynamic_cast<const po::typed_value<int>*>(semantic)) name = "N";
  if (dynamic_cast<const po::typed_value<double>*>(semantic)) name = "X";
  return " " + name;
}

// The default a value takes when the option is not given, as the parser shows it ("arg (=300)"), or "".
std::string default_text(const po::option_description& option) {
  const std::string shown = option.semantic()->name();
  const std::size_t at = shown.find("(=");
  if (at == std::string::npos) return "";
  return fmt::format(" (default {})", shown.substr(at + 2, shown.size() - at - 3));
}

// Words of `text` in lines of at most `width` characters, each after `indent`
// spaces but the first; the text's own line breaks are kept.
std::string wrap(const std::string& text, std::size_t indent, std::size_t width) {
  std::string out, line;
  std::istringstream paragraphs(text);
  bool first_line = true;
  for (std::string paragraph; std::getline(paragraphs, paragraph);) {
    std::istringstream words(paragraph);
    for (std::string word; words >> word;) {
      if (!line.empty() && line.size() + 1 + word.size() > width) {
        out += (first_line ? "" : std::string(indent, ' ')) + line + "\n";
        first_line = false;
        line.clear();
      }
      line += (line.empty() ? "" : " ") + word;
    }
  }
  if (!line.empty()) out += (first_line ? "" : std::string(indent, ' ')) + line + "\n";
  return out.empty() ? "\n" : out;
}

}  // namespace

std::string render_help(const po::options_description& visible) {
  // "-j, --jobs N", then the description, aligned: git's and iperf3's layout,
  // not the parser's "-j [ --jobs ] arg".
  std::vector<std::pair<std::string, std::string>> rows;
  std::size_t widest = 0;
  for (const auto& option : visible.options()) {
    const std::string formatted = option->format_name();  // "-j [ --jobs ]" or "--jobs"
    const bool has_short = formatted.size() > 1 && formatted[0] == '-' && formatted[1] != '-';
    const std::string long_name = "--" + option->long_name();
    std::string names = has_short ? formatted.substr(0, 2) + ", " + long_name : "    " + long_name;
    names += value_text(*option);
    widest = std::max(widest, names.size());
    rows.emplace_back(names, option->description() + default_text(*option));
  }
  constexpr std::size_t kWidth = 100;
  const std::size_t column = std::min<std::size_t>(widest, 28) + 4;
  // The caption, as the parser prints it before its first option (Boost 1.74 has no accessor).
  std::ostringstream printed;
  printed << visible;
  const std::string text = printed.str();
  const std::size_t end =
      visible.options().empty() ? std::string::npos : text.find("\n  " + visible.options().front()->format_name());
  std::string out = end == std::string::npos ? text.substr(0, text.find('\n') + 1) : text.substr(0, end + 1);
  for (const auto& [names, description] : rows) {
    std::string line = "  " + names;
    if (line.size() + 2 > column) {
      out += line + "\n";
      line.clear();
    }
    line.resize(column, ' ');
    out += line + wrap(description, column, kWidth - column);
  }
  return out;
}

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
  } catch (const po::unknown_option& e) {
    throw UsageError(unknown_option_message(e.get_option_name(), visible));
  } catch (const po::invalid_option_value& e) {
    throw UsageError(invalid_value_message(e.get_option_name(), args, visible));
  } catch (const po::invalid_command_line_syntax& e) {
    if (e.kind() == po::invalid_syntax::missing_parameter) {
      throw UsageError(fmt::format("{}: expected a value after it", e.get_option_name()));
    }
    throw UsageError(e.what());
  } catch (const po::error& e) {
    throw UsageError(e.what());
  }
  if (vm.count("help")) {
    fmt::print("{}", render_help(visible));
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

std::optional<std::string> file_option(const po::variables_map& vm, const char* name) {
  if (!vm.count(name) || vm[name].as<std::string>() == "-") return std::nullopt;
  return vm[name].as<std::string>();
}

std::optional<ResultsOption> results_option(const po::variables_map& vm) {
  if (vm.count("output") && vm.count("json")) {
    throw UsageError("--output and --json name the same file (--json is its earlier name): give one");
  }
  if (vm.count("output")) return ResultsOption{"--output", vm["output"].as<std::string>()};
  if (vm.count("json")) return ResultsOption{"--json", vm["json"].as<std::string>()};
  return std::nullopt;
}

void add_results_option(po::options_description& options, const std::string& what) {
  options.add_options()
      ("output,o", po::value<std::string>()->value_name("FILE"), fmt::format("write {} to this file", what).c_str())
      ("json", po::value<std::string>()->value_name("FILE"), "the same as --output (its earlier name)");
}

}  // namespace exsim::cli
