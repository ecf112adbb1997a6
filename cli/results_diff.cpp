#include "cli/results_diff.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "models/base/error.h"
#include "models/base/json_reader.h"
#include "models/base/size.h"
#include "models/base/text_units.h"
#include "models/results/bound.h"
#include "models/results/results_reader.h"

namespace exsim::cli {
namespace {

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

std::string bound_words(const TimeByBound& time) { return time.empty() ? "-" : describe_bound(time); }

}  // namespace

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

void DiffRows::add(const std::string& policy, const std::string& exchange, const std::string& figure, double a,
                   double b, const std::function<std::string(double)>& shown) {
  if (a != b) ++changed;
  if (a == b && !all) return;
  table.add_row({policy, exchange, figure, shown(a), shown(b), change(a, b)});
}

void DiffRows::add_words(const std::string& policy, const std::string& exchange, const std::string& figure,
                         const std::string& a, const std::string& b) {
  if (a != b) ++changed;
  if (a == b && !all) return;
  table.add_row({policy, exchange, figure, a, b, a == b ? "=" : "changed"});
}

void compare(const RunResult& a, const RunResult& b, DiffRows& rows) {
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

}  // namespace exsim::cli
