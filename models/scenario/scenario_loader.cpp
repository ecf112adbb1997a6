// The top of a scenario: name, seed, costs, policies and the workload.
#include "models/scenario/scenario_loader.h"

#include <algorithm>
#include <filesystem>
#include <functional>
#include <map>
#include <regex>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "models/base/error.h"
#include "models/scenario/loader_parts.h"
#include "models/scenario/overrides.h"
#include "models/scenario/enum_names.h"

namespace exsim {

// Generated at configure time from profiles/reference.json (models/CMakeLists.txt).
extern const char* const kReferenceProfileJson;

// A string_view of the names' literals: its data ends with their NUL.
const char* to_string(PartitionKind kind) { return name_of(kind).data(); }

namespace {

Placement read_placement(const JsonNode& node, const Cluster& cluster, int mt_dop, Placement fallback) {
  Placement placement = fallback;
  if (!node.present() || !node.expect_object()) return placement;
  node.reject_unknown_keys({"hosts", "per_host"});
  JsonNode hosts = node.member("hosts");
  if (hosts.is_array()) {
    placement.hosts.clear();
    for (size_t i = 0; i < hosts.size(); ++i) {
      JsonNode h = hosts.element(i);
      std::string name = h.string();
      auto it = std::find_if(cluster.hosts.begin(), cluster.hosts.end(), [&](const Host& x) { return x.name == name; });
      if (it == cluster.hosts.end()) {
        std::vector<std::string> names;
        for (const auto& x : cluster.hosts) names.push_back(x.name);
        std::string hint = closest_name(name, names);
        h.error(fmt::format("unknown host '{}'{}", name, hint.empty() ? "" : fmt::format(" (did you mean '{}'?)", hint)));
        continue;
      }
      int index = static_cast<int>(it - cluster.hosts.begin());
      if (std::find(placement.hosts.begin(), placement.hosts.end(), index) != placement.hosts.end()) {
        h.error(fmt::format("host '{}' listed twice", name));
      }
      placement.hosts.push_back(index);
    }
    std::sort(placement.hosts.begin(), placement.hosts.end());
    if (placement.hosts.empty() && hosts.diagnostics().ok()) hosts.error("expected at least one host");
  } else if (hosts.present()) {
    if (hosts.string() != "all") hosts.error(fmt::format("expected \"all\" or a list of host names, {}", hosts.describe_value()));
    placement.hosts.clear();
    for (int i = 0; i < static_cast<int>(cluster.hosts.size()); ++i) placement.hosts.push_back(i);
  }
  JsonNode per_host = node.member("per_host");
  if (per_host.is_string()) {
    if (per_host.string() != "mt_dop") per_host.error(fmt::format("expected \"mt_dop\" or a number, {}", per_host.describe_value()));
    placement.per_host = std::max(1, mt_dop);
  } else if (per_host.present()) {
    placement.per_host = static_cast<int>(per_host.integer(1, 1, 1024));
  }
  return placement;
}

// Var-len bytes per row: a number (a mean may be fractional) or, as every size
// in a scenario, a string with a binary suffix ("1K").
double row_bytes(const JsonNode& node, double fallback) {
  if (node.present() && !node.is_number()) return static_cast<double>(node.size(0, 0, kGiB));
  return node.number(fallback, 0, false, static_cast<double>(kGiB));
}

RowShape read_row(const JsonNode& node) {
  RowShape row;
  if (!node.expect_object()) return row;
  node.reject_unknown_keys({"fixed_bytes", "varlen_bytes"});
  row.fixed_bytes = node.required("fixed_bytes").size(8, 1, kGiB);
  JsonNode varlen = node.member("varlen_bytes");
  if (!varlen.present() || varlen.is_number() || varlen.is_string()) {
    row.varlen = VarLenDistribution::fixed(row_bytes(varlen, 0));
    return row;
  }
  if (!varlen.is_object()) {
    varlen.error(fmt::format("expected bytes per row (a number, or a size such as \"1K\") or an object "
                             "{{dist, mean, max}}, {}", varlen.describe_value()));
    return row;
  }
  varlen.reject_unknown_keys({"dist", "mean", "max"});
  int dist = varlen.required("dist").choice({"fixed", "uniform", "exponential"}, 0);
  double mean = row_bytes(varlen.required("mean"), 0);
  double max = row_bytes(varlen.member("max"), dist == 0 ? mean : 0);
  if (!varlen.member("max").present() && dist != 0) varlen.required("max");
  if (dist == 0 && varlen.member("max").present() && max != mean) {
    varlen.member("max").error("a fixed size has no max other than its mean; use \"uniform\" or \"exponential\"");
  } else if (max < mean) {
    varlen.member("max").error(fmt::format("max {} is below mean {}", max, mean));
  } else if (dist == 2 && !(mean > 0 && mean < max / 2)) {
    varlen.member("mean").error(fmt::format(
        "an exponential needs 0 < mean < max / 2 (mean {}, max {}); use \"uniform\" for this mean", mean, max));
  } else if (dist == 0) {
    row.varlen = VarLenDistribution::fixed(mean);
  } else if (dist == 1) {
    row.varlen = VarLenDistribution::uniform(mean, max);
  } else {
    row.varlen = VarLenDistribution::exponential(mean, max);
  }
  return row;
}

Exchange read_exchange(const JsonNode& node, const Scenario& scenario) {
  Exchange x;
  if (!node.expect_object()) return x;
  node.reject_unknown_keys({"id", "kind", "rows", "row", "lz4_ratio", "senders", "receivers", "skew",
                            "produce_rows_per_s", "consume_rows_per_s", "input_batch_rows", "scan", "after"});
  x.id = node.required("id").string();
  x.kind = read_enum(node.required("kind"), PartitionKind::kHash);
  x.rows = node.required("rows").integer(1, 1, 1'000'000'000'000'000);
  x.row = read_row(node.required("row"));
  x.lz4_ratio = node.required("lz4_ratio").number(1, 0, /*min_exclusive=*/true, 2.0);
  Placement all;
  for (int i = 0; i < static_cast<int>(scenario.cluster.hosts.size()); ++i) all.hosts.push_back(i);
  all.per_host = std::max(1, scenario.mt_dop);
  x.senders = read_placement(node.member("senders"), scenario.cluster, scenario.mt_dop, all);
  Placement one_receiver{{0}, 1};
  x.receivers = read_placement(node.member("receivers"), scenario.cluster, scenario.mt_dop,
                               x.kind == PartitionKind::kMerge ? one_receiver : all);
  if (x.kind == PartitionKind::kMerge && x.receivers.instances() != 1 && node.diagnostics().ok()) {
    node.member("receivers").error(fmt::format("a merge exchange has exactly one receiver instance, this placement "
                                               "gives {}",
                                               x.receivers.instances()));
  }
  // The simulator keeps state for every (sender instance, channel) pair, about
  // 400 bytes each (measured: 31 MiB peak for 256 x 256): a placement of
  // thousands of instances on each side would fill the machine's memory
  // before its first event, so it is refused here, with its size.
  constexpr double kMostStreams = 1e7;
  const double streams = static_cast<double>(x.senders.instances()) * x.receivers.instances();
  if (streams > kMostStreams && node.diagnostics().ok()) {
    node.error(fmt::format("{} sender instances x {} receiver instances = {:.3g} streams; expected at most {:g} "
                           "(the simulator keeps about 400 bytes per stream)",
                           x.senders.instances(), x.receivers.instances(), streams, kMostStreams));
  }
  JsonNode skew = node.member("skew");
  x.skew = skew.number(0, 0);
  if (x.skew > 0 && x.kind != PartitionKind::kHash) skew.error("skew applies to hash exchanges only");
  x.produce_rows_per_s = node.member("produce_rows_per_s").number(0, 0, /*min_exclusive=*/true);
  x.consume_rows_per_s = node.member("consume_rows_per_s").number(0, 0, /*min_exclusive=*/true);
  // Impala's batch_size query option allows at most 65536 rows.
  x.input_batch_rows = node.member("input_batch_rows").integer(kInputBatchRows, 1, 65536);
  // Simulated time is integer nanoseconds: a rate so slow that the rows would
  // take decades is refused here, with its path, not midway through a run.
  constexpr double kLongest = 1e9;  // seconds, about 32 years
  auto check_rate = [&](const JsonNode& at, double rate, int instances) {
    const double seconds = static_cast<double>(x.rows) / std::max(1, instances) / rate;
    if (rate > 0 && seconds > kLongest) {
      at.error(fmt::format("at {:g} rows/s an instance's share of the rows takes {:.3g} s; expected a rate at which it "
                           "takes at most {:g} s",
                           rate, seconds, kLongest));
    }
  };
  check_rate(node.member("produce_rows_per_s"), x.produce_rows_per_s, x.senders.instances());
  check_rate(node.member("consume_rows_per_s"), x.consume_rows_per_s, x.receivers.instances());
  if (JsonNode scan = node.member("scan"); scan.present() && scan.expect_object()) {
    scan.reject_unknown_keys({"rows_per_s", "threads"});
    x.scan.rows_per_s = scan.required("rows_per_s").number(0, 0, /*min_exclusive=*/true);
    // Impala's num_scanner_threads is at most the host's cores by default; a
    // thousand is a typo, not a scan node.
    x.scan.threads = static_cast<int>(scan.required("threads").integer(1, 1, 1024));
    check_rate(scan.member("rows_per_s"), x.scan.rows_per_s, x.senders.instances());
  }
  return x;
}

// Resolves "after" ids to indices and rejects unknown ids and cycles.
void read_after(const JsonNode& exchanges, Query& query) {
  std::map<std::string, int> index;
  for (size_t i = 0; i < query.exchanges.size(); ++i) {
    if (!index.emplace(query.exchanges[i].id, static_cast<int>(i)).second) {
      exchanges.element(i).member("id").error(fmt::format("duplicate exchange id '{}' in this query", query.exchanges[i].id));
    }
  }
  for (size_t i = 0; i < query.exchanges.size(); ++i) {
    JsonNode after = exchanges.element(i).member("after");
    if (!after.present() || !after.expect_array()) continue;
    for (size_t k = 0; k < after.size(); ++k) {
      std::string id = after.element(k).string();
      auto it = index.find(id);
      if (it == index.end()) {
        after.element(k).error(fmt::format("unknown exchange id '{}' in this query", id));
      } else {
        query.exchanges[i].after.push_back(it->second);
      }
    }
  }
  // Depth-first search for a cycle; report it as a path of ids.
  std::vector<int> state(query.exchanges.size(), 0), stack;
  std::function<bool(int)> visit = [&](int v) {
    state[v] = 1;
    stack.push_back(v);
    for (int w : query.exchanges[v].after) {
      if (state[w] == 1) {
        std::string cycle;
        auto start = std::find(stack.begin(), stack.end(), w);
        for (auto s = start; s != stack.end(); ++s) cycle += query.exchanges[*s].id + " -> ";
        exchanges.element(v).member("after").error(fmt::format("'after' forms a cycle: {}{}", cycle, query.exchanges[w].id));
        return true;
      }
      if (state[w] == 0 && visit(w)) return true;
    }
    stack.pop_back();
    state[v] = 2;
    return false;
  };
  for (size_t v = 0; v < query.exchanges.size(); ++v) {
    if (state[v] == 0 && visit(static_cast<int>(v))) break;
  }
}

// Where a scenario's "costs": "PATH" points: relative to the scenario's folder.
std::string costs_path(const std::string& scenario_file, const std::string& named) {
  std::filesystem::path path = named;
  if (path.is_relative()) {
    const std::filesystem::path folder = std::filesystem::path(scenario_file).parent_path();
    path = (folder.empty() ? std::filesystem::path(".") : folder) / path;
  }
  return path.lexically_normal().string();
}

CostProfile read_costs_reference(const JsonNode& node, const std::string& file, Diagnostics& diagnostics,
                                 ScenarioPaths paths) {
  if (!node.present()) return reference_cost_profile();
  if (node.is_string()) {
    if (paths == ScenarioPaths::kRefuse) {
      // Not even the path in the message's words: only that one was given.
      node.error("expected the costs profile itself: a path is read by the coordinator, which sends the "
                 "profile, never by an agent");
      return reference_cost_profile();
    }
    try {
      return load_cost_profile(costs_path(file, node.string()));
    } catch (const InputError& e) {
      node.error(fmt::format("costs profile: {}", e.what()));
      return reference_cost_profile();
    }
  }
  CostProfile costs = read_costs(node, reference_cost_profile());
  // Named by what they are: the reference with the keys --set changed, or
  // the scenario's own figures (with those --set changed among them).
  std::vector<std::string> set_keys;
  std::size_t keys = 0;
  if (node.is_object()) {
    for (const std::string& key : node.keys()) {
      ++keys;
      const std::string pointer = node.pointer() + "/" + escape_pointer_token(key);
      for (const auto& [overridden, assignment] : diagnostics.overridden()) {
        if (overridden == pointer || overridden.rfind(pointer + "/", 0) == 0) {
          set_keys.push_back(key);
          break;
        }
      }
    }
  }
  const std::string base = !set_keys.empty() && set_keys.size() == keys ? reference_cost_profile().source : "inline";
  costs.source = set_keys.empty() ? base : fmt::format("{} + {} (--set)", base, fmt::join(set_keys, ", "));
  return costs;
}

Scenario read_scenario(const nlohmann::ordered_json& document, const std::string& file, Overridden overridden,
                       ScenarioPaths paths) {
  Diagnostics diagnostics(file, std::move(overridden));
  JsonNode root(&document, "", &diagnostics);
  Scenario scenario;
  scenario.file = file;
  if (!root.expect_object()) diagnostics.throw_if_errors();
  root.reject_unknown_keys(
      {"name", "description", "notes", "seed", "cluster", "mt_dop", "costs", "policies", "workload"});
  JsonNode name = root.required("name");
  scenario.name = name.string("unnamed");
  if (name.is_string() && !std::regex_match(scenario.name, std::regex("[a-z0-9._-]+"))) {
    name.error(fmt::format("expected a name of [a-z0-9._-]+, got \"{}\"", scenario.name));
  }
  scenario.description = root.member("description").string();
  // Notes on the file's values, by JSON pointer: where each came from or what was assumed.
  if (JsonNode notes = root.member("notes"); notes.present() && notes.expect_object()) {
    for (const auto& key : notes.keys()) {
      JsonNode note = notes.member(key);
      bool names_a_value = false;
      try {
        names_a_value = document.contains(nlohmann::ordered_json::json_pointer(key));
      } catch (const nlohmann::json::exception&) {
        // not a JSON pointer: reported below
      }
      if (!names_a_value) {
        note.error(fmt::format("the key \"{}\" names no value in this file: expected the JSON pointer of one, such "
                               "as \"/workload/queries/0/exchanges/0/rows\"", key));
      }
      scenario.notes.emplace_back(key, note.string());
    }
  }
  scenario.seed = static_cast<std::uint64_t>(root.member("seed").integer(0, 0));
  scenario.mt_dop = static_cast<int>(root.member("mt_dop").integer(0, 0, 1024));
  scenario.cluster = read_cluster(root.required("cluster"), scenario.seed);
  scenario.costs = read_costs_reference(root.member("costs"), file, diagnostics, paths);

  JsonNode policies = root.required("policies");
  if (policies.present() && policies.expect_object()) {
    if (policies.size() == 0) policies.error("expected at least one policy");
    for (const auto& key : policies.keys()) {
      // --set and --vary reach a policy by its name in a dotted path, '*' standing for all.
      if (key.empty() || key.find_first_of(".*") != std::string::npos) {
        policies.member(key).error(fmt::format("a policy name must be non-empty, without '.' or '*' (--set paths "
                                               "name policies by it), got \"{}\"", key));
      }
      scenario.policies.push_back(read_policy(policies.member(key), key));
    }
  }
  JsonNode workload = root.required("workload");
  if (workload.present() && workload.expect_object()) {
    workload.reject_unknown_keys({"queries"});
    JsonNode queries = workload.required("queries");
    if (queries.present() && queries.expect_array()) {
      if (queries.size() == 0) queries.error("expected at least one query");
      for (size_t q = 0; q < queries.size(); ++q) {
        JsonNode qn = queries.element(q);
        if (!qn.expect_object()) continue;
        qn.reject_unknown_keys({"name", "repeat", "exchanges"});
        Query query;
        query.name = qn.required("name").string(fmt::format("q{}", q));
        query.repeat = static_cast<int>(qn.member("repeat").integer(1, 1, 1000000));
        JsonNode exchanges = qn.required("exchanges");
        if (exchanges.present() && exchanges.expect_array()) {
          if (exchanges.size() == 0) exchanges.error("expected at least one exchange");
          for (size_t e = 0; e < exchanges.size(); ++e) {
            query.exchanges.push_back(read_exchange(exchanges.element(e), scenario));
          }
          read_after(exchanges, query);
        }
        scenario.queries.push_back(std::move(query));
      }
    }
  }
  diagnostics.throw_if_errors();
  return scenario;
}

}  // namespace

Scenario parse_scenario(std::string_view text, const std::string& file, const std::vector<std::string>& overrides,
                        ScenarioPaths paths) {
  nlohmann::ordered_json document = parse_json_text(text, file);
  Overridden overridden;
  // A file that is no scenario at all is said so, not blamed on a --set that finds no key in it.
  if (!document.is_object()) return read_scenario(document, file, std::move(overridden), paths);
  for (const auto& assignment : overrides) {
    for (auto& pointer : apply_override(document, assignment)) overridden.emplace_back(std::move(pointer), assignment);
  }
  return read_scenario(document, file, std::move(overridden), paths);
}

std::string with_costs_inlined(std::string_view text, const std::string& file) {
  nlohmann::ordered_json document;
  try {
    document = nlohmann::ordered_json::parse(text);
  } catch (const nlohmann::json::exception&) {
    return std::string(text);  // the parse that follows reports it, by line
  }
  if (!document.is_object() || !document.contains("costs") || !document["costs"].is_string()) {
    return std::string(text);
  }
  const std::string path = costs_path(file, document["costs"].get<std::string>());
  load_cost_profile(path);  // a bad profile is named here, as the coordinator's own load names it
  document["costs"] = parse_json_text(read_text_file(path, "the costs profile"), path);
  return document.dump();
}

std::string with_cluster(std::string_view text, const std::string& file, std::string_view cluster,
                         const std::string& cluster_file) {
  nlohmann::ordered_json document = parse_json_text(text, file);
  nlohmann::ordered_json measured = parse_json_text(cluster, cluster_file);
  // The scenario's host count, as its loader reads it: a list or a number.
  const Scenario own = read_scenario(document, file, {}, ScenarioPaths::kRead);
  const std::size_t hosts = own.cluster.hosts.size();
  if (!measured.is_object() || !measured.contains("hosts") || !measured["hosts"].is_array() ||
      !measured.contains("rtt_matrix_ms")) {
    throw InputError({fmt::format("{}: expected a cluster with \"hosts\" and \"rtt_matrix_ms\" (as calibrate "
                                  "--hosts writes)", cluster_file)});
  }
  if (measured["hosts"].size() < hosts) {
    throw InputError({fmt::format("{}: {} hosts measured, but {} needs {}", cluster_file, measured["hosts"].size(),
                                  file, hosts)});
  }
  auto cut = measured;
  cut["hosts"] = nlohmann::ordered_json::array();
  cut["rtt_matrix_ms"] = nlohmann::ordered_json::array();
  for (std::size_t a = 0; a < hosts; ++a) {
    cut["hosts"].push_back(measured["hosts"][a]);
    nlohmann::ordered_json row = nlohmann::ordered_json::array();
    for (std::size_t b = 0; b < hosts; ++b) row.push_back(measured["rtt_matrix_ms"].at(a).at(b));
    cut["rtt_matrix_ms"].push_back(std::move(row));
  }
  document["cluster"] = std::move(cut);
  return document.dump();
}

std::string read_scenario_file(const std::string& path) { return read_text_file(path, "the scenario file"); }

Scenario load_scenario(const std::string& path, const std::vector<std::string>& overrides) {
  return parse_scenario(read_scenario_file(path), path, overrides);
}

CostProfile load_cost_profile(const std::string& path) {
  nlohmann::ordered_json document = parse_json_text(read_text_file(path, "the costs profile"), path);
  Diagnostics diagnostics(path);
  // Over the reference profile, as an inline object is: the same profile means
  // the same costs wherever it is written.
  CostProfile costs = read_costs(JsonNode(&document, "", &diagnostics), reference_cost_profile());
  diagnostics.throw_if_errors();
  costs.source = path;
  return costs;
}

CostProfile reference_cost_profile() {
  static const CostProfile profile = [] {
    const std::string file = "profiles/reference.json (built in)";
    nlohmann::ordered_json document = parse_json_text(kReferenceProfileJson, file);
    Diagnostics diagnostics(file);
    CostProfile costs = read_costs(JsonNode(&document, "", &diagnostics), CostProfile{});
    diagnostics.throw_if_errors();
    costs.source = "profiles/reference.json";
    return costs;
  }();
  return profile;
}

void check_policy_names(const std::vector<std::string>& names, const std::vector<std::string>& known,
                        const std::string& file, const std::string& flag) {
  for (auto it = names.begin(); it != names.end(); ++it) {
    if (std::find(names.begin(), it, *it) != it) throw UsageError(fmt::format("{} {}: given twice", flag, *it));
    if (std::find(known.begin(), known.end(), *it) != known.end()) continue;
    const std::string hint = closest_name(*it, known);
    std::string all;
    for (const auto& k : known) all += (all.empty() ? "" : ", ") + k;
    throw UsageError(fmt::format("{} {}: no such policy in {} (policies: {}){}", flag, *it, file, all,
                                 hint.empty() ? "" : fmt::format("; did you mean '{}'?", hint)));
  }
}

}  // namespace exsim
