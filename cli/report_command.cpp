// exsim report RESULTS... [-o report.html] [--memory-budget 2G] [--margin PERCENT] [--markdown report.md] [--csv DIR]
#include <filesystem>

#include <boost/program_options.hpp>
#include <fmt/format.h>

#include "cli/command_line.h"
#include "cli/commands.h"
#include "cli/output_files.h"
#include "models/base/error.h"
#include "models/base/size.h"
#include "models/results/results.h"
#include "plots/figures.h"
#include "plots/gnuplot.h"
#include "plots/report.h"
#include "validate/validated_region.h"

namespace exsim::cli {
namespace po = boost::program_options;

int report_command(const std::vector<std::string>& args) {
  po::options_description visible(
      "usage: exsim report RESULTS... [-o report.html] [--memory-budget SIZE] [--margin PERCENT]\n"
      "                    [--markdown report.md] [--csv DIR] [--title TEXT]\n\n"
      "A capacity-planning report from results files (simulate or run -o, sweep\n"
      "JSON Lines, validate -o, advise -o): the scenario and its RTT heatmap, a table of every\n"
      "result, plots drawn with gnuplot (wall-clock against buffer size per MT_DOP and\n"
      "RPCs in flight, per-host sender memory against the budget, RPCs, CPU by stage,\n"
      "predicted against measured), and a recommendation by the rule advise picks by: of\n"
      "the results whose worst-case per-host sender memory fits the budget, the least\n"
      "memory within a margin of the fastest, against the first result.\n"
      "The HTML is self-contained (inline SVG and CSS).\n\n"
      "examples:\n"
      "  exsim simulate scenarios/default.json -o a.json && exsim report a.json --memory-budget 2G\n"
      "  exsim report sweep.jsonl validation.json -o report.html --csv plots/ --markdown report.md\n\n"
      "Exit status: 0 written, 2 bad input (a results file, a flag), 3 a failure writing.\n\noptions");
  visible.add_options()
      ("help,h", "print this help")
      ("output,o", po::value<std::string>()->value_name("FILE"), "write the HTML report here (default: report.html)")
      ("memory-budget", po::value<std::string>()->value_name("SIZE"), "per-host sender memory allowed, e.g. 2G")
      ("margin", po::value<double>()->value_name("PERCENT"),
       "results this close to the fastest are not told apart, and the least memory among them is recommended\n"
       "(default: the larger of 2% and the model's median error, of a validation among the inputs or else\n"
       "of its validation suite)")
      ("markdown", po::value<std::string>()->value_name("FILE"), "also write the report as Markdown (for a CI comment)")
      ("csv", po::value<std::string>()->value_name("DIR"), "also write each figure's data as DIR/NAME.csv, for plots/NAME.gp (DIR made if missing)")
      ("title", po::value<std::string>()->value_name("TEXT"), "the report's title");
  const auto parsed = parse_command_line(args, visible, "results");
  if (!parsed) return kExitOk;
  const po::variables_map& vm = *parsed;
  if (!vm.count("results")) throw UsageError("expected one or more results files");
  report::ReportOptions options;
  if (vm.count("title")) options.title = vm["title"].as<std::string>();
  if (vm.count("memory-budget")) {
    const std::string text = vm["memory-budget"].as<std::string>();
    const auto bytes = parse_size(text);
    if (!bytes || *bytes <= 0) throw UsageError(fmt::format("--memory-budget {}: expected a size such as 2G or 512M", text));
    options.memory_budget = static_cast<double>(*bytes);
  }
  if (vm.count("margin")) {
    const double percent = vm["margin"].as<double>();
    if (!(percent >= 0 && percent < 50)) throw UsageError(fmt::format("--margin {}: expected a percentage from 0 to 50", percent));
    options.margin = percent / 100;
  }
  const std::string html_path = vm.count("output") ? vm["output"].as<std::string>() : "report.html";
  OutputFiles outputs;
  outputs.writes("--output", html_path, OutputFormat::kHtml, "for Markdown, --markdown FILE");
  if (vm.count("markdown")) outputs.writes("--markdown", vm["markdown"].as<std::string>(), OutputFormat::kMarkdown);
  if (vm.count("csv")) {
    // Made if missing (after the inputs are read, so bad input leaves nothing behind).
    const std::filesystem::path dir = vm["csv"].as<std::string>();
    if (std::filesystem::exists(dir) && !std::filesystem::is_directory(dir)) {
      throw UsageError(fmt::format("--csv {}: exists and is not a directory", dir.string()));
    }
  }

  const auto& inputs = vm["results"].as<std::vector<std::string>>();
  for (const auto& in : inputs) outputs.reads(in);
  const report::ReportInput input = report::read_report_input(inputs);
  if (!vm.count("margin")) {
    options.margin = decision_margin(input.verdicts.empty() ? validate::median_wall_error(validate::builtin_region())
                                                            : input.verdicts.front().wall_median_error);
  }
  const auto figures = report::figures(input, options.memory_budget.value_or(0));
  std::vector<std::string> svgs;
  for (const auto& f : figures) svgs.push_back(f.csv.empty() ? "" : report::render_svg(f.name, f.csv, f.variables));
  // Every output is checked and made before any is written, and they take
  // their places together: a failure leaves none behind.
  std::vector<std::pair<std::string, std::string>> csv_files;
  if (vm.count("csv")) {
    const std::filesystem::path dir = vm["csv"].as<std::string>();
    for (const auto& f : figures) {
      if (f.csv.empty()) continue;
      csv_files.emplace_back((dir / (f.name + ".csv")).string(), f.csv);
      outputs.writes("--csv", csv_files.back().first);
    }
    std::error_code error;
    const bool made = std::filesystem::create_directories(dir, error);
    if (error) throw UsageError(fmt::format("--csv {}: cannot make the directory: {}", dir.string(), error.message()));
    try {
      outputs.check();
    } catch (...) {
      if (made) std::filesystem::remove(dir, error);
      throw;
    }
  } else {
    outputs.check();
  }
  outputs.put("--output", report::render_html(input, figures, svgs, options));
  if (vm.count("markdown")) outputs.put("--markdown", report::render_markdown(input, options));
  for (auto& [path, csv] : csv_files) outputs.put(path, std::move(csv));
  outputs.write();
  for (const auto& w : input.warnings) fmt::print(stderr, "warning: {}\n", w);
  fmt::print(outputs.to_stdout() ? stderr : stdout, "{}\nwrote {}\n",
             report::recommendation_text(report::recommend(input, options.memory_budget, options.margin)),
             html_path == "-" ? "the report to standard output" : html_path);
  return kExitOk;
}

}  // namespace exsim::cli
