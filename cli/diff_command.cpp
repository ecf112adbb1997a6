// exsim diff A.json B.json: what changed between two results files, per
// policy and per exchange, as `perf diff` shows two profiles side by side.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <boost/program_options.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/command_line.h"
#include "cli/commands.h"
#include "models/base/error.h"
#include "models/base/json_reader.h"
#include "models/base/size.h"
#include "models/base/text_table.h"
#include "models/base/text_units.h"
#include "models/results/bound.h"
#include "models/results/results_reader.h"

namespace exsim::cli {
namespace po = boost::program_options;
namespace {

// A results file as simulate and run write it: an array of results, each
// checked with its JSON pointer named.
std::vector<RunResult> read_results(const std::string& path) {
  const std::string text = read_text_file(path, "results");
  const nlohmann::ordered_json doc = parse_json_text(text, path);
  Diagnostics diagnostics(path);
  const JsonNode root(&doc, "", &diagnostics);
  if (!root.is_array()) {
    throw InputError({fmt::format("{}: expected results as simulate and run write them (a JSON array of results)",
                                  path)});
  }
  std::vector<RunResult> results;
  for (std::size_t i = 0; i < root.size(); ++i) results.push_back(read_run_result(root.element(i)));
  diagnostics.throw_if_errors();
  return results;
}

Bytes largest_worst(const RunResult& r) {
  Bytes worst = 0;
  for (const HostResult& h : r.hosts) worst = std::max(worst, h.sender_worst_bytes);
  return worst;
}

std::string change(double a, double b) {
  if (a == b) return "=";
  if (a == 0) return "new";
  return format_signed_percent(b / a - 1);
}

struct Rows {
  Table table{{"policy", "exchange", "figure", "A", "B", "change"}};
  bool all = false;
  int changed = 0;
  // A figure: shown when it changed, or with --all.
  void add(const std::string& policy, const std::string& exchange, const std::string& figure, double a, double b,
           const std::function<std::string(double)>& shown) {
    if (a != b) ++changed;
    if (a == b && !all) return;
    table.add_row({policy, exchange, figure, shown(a), shown(b), change(a, b)});
  }
  void add_words(const std::string& policy, const std::string& exchange, const std::string& figure,
                 const std::string& a, const std::string& b) {
    if (a != b) ++changed;
    if (a == b && !all) return;
    table.add_row({policy, exchange, figure, a, b, a == b ? "=" : "changed"});
  }
};

std::string bound_words(const TimeByBound& time) { return time.empty() ? "-" : describe_bound(time); }

void compare(const RunResult& a, const RunResult& b, Rows& rows) {
  const auto seconds = [](double s) { return fmt::format("{:.3f} s", s); };
  const auto count = [](double n) { return fmt::format("{:.0f}", n); };
  const auto bytes = [](double n) { return human_bytes(n); };
  rows.add(a.policy, "", "wall", a.wall_s, b.wall_s, seconds);
  rows.add(a.policy, "", "RPCs", static_cast<double>(a.rpcs), static_cast<double>(b.rpcs), count);
  rows.add(a.policy, "", "bytes on the wire", a.bytes_wire, b.bytes_wire, bytes);
  rows.add_words(a.policy, "", "bound by", bound_words(a.sender_time()), bound_words(b.sender_time()));
  rows.add(a.policy, "", "worst-case sender memory", static_cast<double>(largest_worst(a)),
           static_cast<double>(largest_worst(b)), bytes);
  std::map<std::pair<std::string, std::string>, const ExchangeResult*> theirs;
  for (const ExchangeResult& x : b.exchanges) theirs.emplace(std::make_pair(x.query, x.id), &x);
  for (const ExchangeResult& x : a.exchanges) {
    const auto found = theirs.find({x.query, x.id});
    const std::string name = x.query + " " + x.id;
    if (found == theirs.end()) {
      rows.add_words(a.policy, name, "exchange", "present", "absent");
      continue;
    }
    const ExchangeResult& y = *found->second;
    theirs.erase(found);
    rows.add(a.policy, name, "RPCs", static_cast<double>(x.rpcs), static_cast<double>(y.rpcs), count);
    rows.add(a.policy, name, "bytes on the wire", x.bytes_wire, y.bytes_wire, bytes);
    rows.add_words(a.policy, name, "bound by", bound_words(x.sender_time), bound_words(y.sender_time));
    if (x.sender_instance_peak_bytes >= 0 && y.sender_instance_peak_bytes >= 0) {
      rows.add(a.policy, name, "largest sender's peak", static_cast<double>(x.sender_instance_peak_bytes),
               static_cast<double>(y.sender_instance_peak_bytes), bytes);
    }
  }
  for (const auto& [key, x] : theirs) rows.add_words(a.policy, key.first + " " + key.second, "exchange", "absent", "present");
}

}  // namespace

int diff_command(const std::vector<std::string>& args) {
  po::options_description visible(
      "usage: exsim diff A.json B.json [--all]\n\n"
      "What changed from one results file to another (simulate or run -o: another model, other\n"
      "costs, a change to the scenario), as perf diff shows two profiles: per policy, its\n"
      "wall-clock, RPCs, bytes on the wire, what bounded it and its worst-case sender memory;\n"
      "per exchange, its RPCs, bytes, what bounded it and its largest sender's peak. Policies\n"
      "are matched by name, exchanges by query and id; one in a file only is said so. Only what\n"
      "changed is shown, unless --all.\n\n"
      "examples:\n"
      "  exsim simulate scenarios/default.json -o a.json\n"
      "  exsim simulate scenarios/default.json --set costs.rpc_cpu_us=20 -o b.json && exsim diff a.json b.json\n\n"
      "Exit status: 0 compared (whatever changed), 2 bad input (a results file, a flag).\n\noptions");
  visible.add_options()("help,h", "print this help")("all", "show every figure, changed or not");
  const auto parsed = parse_command_line(args, visible, "results");
  if (!parsed) return kExitOk;
  const po::variables_map& vm = *parsed;
  const auto files = vm.count("results") ? vm["results"].as<std::vector<std::string>>() : std::vector<std::string>{};
  if (files.size() != 2) throw UsageError(fmt::format("expected two results files, A and B; got {}", files.size()));
  const std::vector<RunResult> a = read_results(files[0]);
  const std::vector<RunResult> b = read_results(files[1]);
  Rows rows;
  rows.all = vm.count("all") > 0;
  std::vector<std::string> only_a, only_b;
  for (const RunResult& x : a) {
    const auto y = std::find_if(b.begin(), b.end(), [&](const RunResult& r) { return r.policy == x.policy; });
    if (y == b.end()) {
      only_a.push_back(x.policy);
    } else {
      compare(x, *y, rows);
    }
  }
  for (const RunResult& y : b) {
    if (std::none_of(a.begin(), a.end(), [&](const RunResult& r) { return r.policy == y.policy; })) {
      only_b.push_back(y.policy);
    }
  }
  fmt::print("A: {}\nB: {}\n\n", files[0], files[1]);
  if (rows.changed == 0 && !rows.all) {
    fmt::print("no figure changed\n");
  } else {
    fmt::print("{}", rows.table.render());
  }
  for (const auto& p : only_a) fmt::print("policy {}: in A only\n", p);
  for (const auto& p : only_b) fmt::print("policy {}: in B only\n", p);
  return kExitOk;
}

}  // namespace exsim::cli
