#include "models/impala/profile_import.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <optional>
#include <tuple>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "models/base/error.h"
#include "models/impala/profile_queries.h"
#include "models/impala/profile_titles.h"
#include "models/impala/exchange_shape.h"
#include "models/impala/exchange_counters.h"

namespace exsim {
namespace {

using Json = nlohmann::ordered_json;

// Values the profile never holds, assumed for every imported scenario.
constexpr double kAssumedRttMs = 0.1;
constexpr double kAssumedNicGbps = 10;
constexpr int kAssumedCores = 16;

// One data stream sender of the profile: its fragment's instances or, in an
// averaged-only profile, the averaged fragment and its instance count, or in
// the aggregated layout, the one section for all instances and their hosts.
struct SenderGroup {
  int query = 0;         // of the file's profiles, counted from 0
  std::string fragment;  // "F01", or "" when no fragment header encloses it
  int dst_id = 0;
  std::vector<std::pair<std::string, const ProfileSection*>> instances;  // (host, sender section)
  const ProfileSection* averaged = nullptr;
  const ProfileSection* aggregated = nullptr;
  std::vector<std::string> listed_hosts;  // the aggregated section's instances' hosts
};


class Importer {
 public:
  Importer(const ImpalaProfile& profile, const ProfileImportOptions& options) : profile_(profile), options_(options) {}

  ImportedScenario run() {
    find_queries();
    collect();
    if (groups_.empty()) {
      if (options_.query > 0) {
        throw InputError({fmt::format("{}: profile {} of {} ({}) has no KrpcDataStreamSender or DataStreamSender "
                                      "section: nothing to import",
                                      profile_.file(), options_.query, queries_.size(),
                                      queries_[static_cast<std::size_t>(options_.query - 1)].id)});
      }
      throw InputError({fmt::format("{}: no KrpcDataStreamSender or DataStreamSender section: nothing to import",
                                      profile_.file())});
    }
    // A --kind for an exchange the profile does not have is a mistake, not a no-op.
    for (const auto& [id, kind] : options_.kinds) {
      std::string ids;
      bool found = false;
      for (const auto& [key, group] : groups_) {
        found = found || group.dst_id == id;
        ids += (ids.empty() ? "" : ", ") + std::to_string(group.dst_id);
      }
      if (!found) {
        throw UsageError(fmt::format("--kind {}={}: {} has no sender to exchange {} (its senders' dst_ids: {})", id, kind,
                                     profile_.file(), id, ids));
      }
    }
    Json doc;
    doc["name"] = scenario_name();
    doc["description"] = fmt::format("Imported by exsim import-profile from {}; 'notes' says where each value came "
                                     "from and which were assumed.",
                                     profile_.file());
    doc["notes"] = Json::object();
    doc["seed"] = 1;
    doc["cluster"] = cluster();
    // IMPALA-12430 (4.3.0): no LZ4 for a channel to the sender's own process.
    const std::string version = impala_version(profile_);
    const std::optional<bool> skips = skips_local_compression(version);
    skips_local_ = skips.value_or(true);
    doc["policies"] = Json{{"16K", Json{{"buffer", Json{{"flat", "16K"}}}, {"compression", skips_local_ ? "lz4_skip_local" : "lz4"}}}};
    note("/policies/16K", "assumed: Impala's defaults (data_stream_sender_buffer_size 16K, one RPC in flight)", true);
    note("/policies/16K/compression",
         skips ? fmt::format("measured: {} {} LZ4 for a channel to its own process (IMPALA-12430, 4.3.0)", version,
                             *skips ? "skips" : "does not skip")
               : "assumed: the profile gives no Impala version; taken as 4.3.0 or later, which skips LZ4 for a channel "
                 "to its own process (IMPALA-12430)",
         !skips.has_value());
    // One scenario query per profile that has senders, in the file's order.
    Json queries = Json::array();
    int imported = 0;
    for (auto it = groups_.begin(); it != groups_.end();) {
      const int query = it->second.query;
      Json exchanges = Json::array();
      for (; it != groups_.end() && it->second.query == query; ++it) {
        if (auto x = exchange(it->second, queries.size(), exchanges.size())) exchanges.push_back(std::move(*x));
      }
      if (exchanges.empty()) continue;
      imported += static_cast<int>(exchanges.size());
      const QuerySpan& span = queries_[static_cast<std::size_t>(query)];
      note(fmt::format("/workload/queries/{}/name", queries.size()),
           span.id.empty() ? "the profile" : fmt::format("measured: profile {} of the file, Query (id={})", query + 1, span.id),
           false);
      queries.push_back(Json{{"name", fmt::format("q{}", query + 1)}, {"exchanges", std::move(exchanges)}});
    }
    if (queries.empty()) {
      std::vector<std::string> lines = {fmt::format("{}: no data stream sender sent a row: nothing to import", profile_.file())};
      lines.insert(lines.end(), skipped_.begin(), skipped_.end());
      throw InputError(lines);
    }
    doc["workload"]["queries"] = queries;
    for (const auto& [pointer, text] : notes_) {
      Json& slot = doc["notes"][pointer];
      slot = slot.is_string() ? slot.get<std::string>() + "; " + text : text;
    }
    return {doc.dump(2) + "\n", assumptions_, imported, skipped_, measured_};
  }

 private:
  void find_queries() {
    queries_ = profile_queries(profile_);
    if (options_.query > static_cast<int>(queries_.size())) {
      throw UsageError(fmt::format("--query {}: {} holds {} profile{}", options_.query, profile_.file(),
                                   queries_.size(), queries_.size() == 1 ? "" : "s"));
    }
  }

  void add_host(const std::string& host) {
    if (std::find(hosts_.begin(), hosts_.end(), host) == hosts_.end()) hosts_.push_back(host);
  }

  void collect() {
    for (const ProfileSection* s : profile_.sections()) {
      const int query = query_of(queries_, *s);
      if (options_.query > 0 && query != options_.query - 1) continue;
      if (auto host = instance_host(*s)) add_host(*host);
      for (const std::string& host : listed_instance_hosts(*s)) add_host(host);
      if (auto id = exchange_node_id(profile_, *s)) exchange_nodes_.emplace(std::pair{query, *id}, s);
      if (is_averaged_fragment(*s)) most_instances_ = std::max(most_instances_, instances_of(*s));
      const std::optional<int> dst = sender_dst_id(profile_, *s);
      if (!dst) continue;
      const Enclosing e = enclosing(*s);
      SenderGroup& g = groups_[{query, e.fragment, *dst}];
      g.query = query;
      g.fragment = e.fragment;
      g.dst_id = *dst;
      if (!e.host.empty()) {
        g.instances.emplace_back(e.host, s);
      } else if (!e.listed_hosts.empty()) {
        g.aggregated = s;
        g.listed_hosts = e.listed_hosts;
      } else if (e.averaged || !g.averaged) {
        g.averaged = s;
      }
    }
    // Daemons by name: their host's, or with the port where several share it.
    const std::vector<std::string> names = daemon_names(hosts_);
    for (std::size_t i = 0; i < hosts_.size(); ++i) host_names_[hosts_[i]] = names[i];
    hosts_ = names;
  }

  int instances_of(const ProfileSection& averaged_fragment) const {
    const ProfileEntry* n = averaged_fragment.info("num instances");
    return n ? std::max(1, static_cast<int>(profile_.count(*n))) : 1;
  }

  std::string scenario_name() const {
    if (!options_.name.empty()) return options_.name;
    // One profile imported: its query id.
    const int first = groups_.begin()->second.query;
    const bool one = std::all_of(groups_.begin(), groups_.end(), [&](const auto& g) { return g.second.query == first; });
    if (std::string id = queries_[static_cast<std::size_t>(first)].id; one && !id.empty()) {
      std::replace(id.begin(), id.end(), ':', '-');
      return "impala-" + id;
    }
    // The file's stem, in the characters a scenario name allows.
    std::string stem;
    const std::string& file = profile_.file();
    const std::size_t slash = file.find_last_of('/');
    for (char c : file.substr(slash == std::string::npos ? 0 : slash + 1)) {
      c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      stem += std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-' ? c : '-';
    }
    if (const std::size_t dot = stem.rfind('.'); dot != std::string::npos && dot > 0) stem.resize(dot);
    return stem.empty() ? "imported-profile" : stem;
  }

  void note(const std::string& pointer, std::string text, bool assumed) {
    if (assumed) assumptions_.emplace_back(pointer, text);
    notes_.emplace_back(pointer, std::move(text));
  }

  Json cluster() {
    Json c;
    if (!hosts_.empty()) {
      if (options_.hosts > 0 && options_.hosts != static_cast<int>(hosts_.size())) {
        throw UsageError(fmt::format("--hosts {}: the profile names its {} hosts; leave --hosts out", options_.hosts,
                                     hosts_.size()));
      }
      Json list = Json::array();
      for (const auto& h : hosts_) list.push_back(Json{{"name", h}, {"group", "a"}});
      c["hosts"] = list;
      note("/cluster/hosts", fmt::format("measured: the hosts of the profile's fragment instances ({})", hosts_.size()), false);
    } else if (options_.hosts > 0) {
      c["hosts"] = options_.hosts;
      note("/cluster/hosts", "given on the command line (--hosts): the profile names no hosts", false);
    } else {
      c["hosts"] = std::max(1, most_instances_);
      note("/cluster/hosts",
           fmt::format("assumed: the profile names no hosts; taken as the most instances of any fragment ({}); "
                       "pass --hosts N to set it",
                       std::max(1, most_instances_)),
           true);
    }
    c["cores_per_host"] = kAssumedCores;
    note("/cluster/cores_per_host", "assumed: a profile does not record the hosts' cores", true);
    c["nic_gbps"] = kAssumedNicGbps;
    note("/cluster/nic_gbps", "assumed: a profile does not record the NICs' speed", true);
    c["rtt_ms"] = Json{{"same_group", kAssumedRttMs}};
    note("/cluster/rtt_ms/same_group", "assumed: a profile does not record round-trip times", true);
    host_count_ = hosts_.empty() ? c["hosts"].get<int>() : static_cast<int>(hosts_.size());
    return c;
  }

  // Placement of the instances on `hosts` (all hosts when empty).
  Json placement(const std::vector<std::string>& hosts) const {
    if (hosts.empty()) return Json{{"hosts", "all"}, {"per_host", 1}};
    std::map<std::string, int> per_host;
    for (const auto& h : hosts) ++per_host[h];
    Json names = Json::array();
    int most = 0;
    for (const auto& h : hosts_) {
      if (per_host.count(h)) {
        names.push_back(h);
        most = std::max(most, per_host.at(h));
      }
    }
    return Json{{"hosts", names}, {"per_host", most}};
  }

  // nullopt for a sender left out (skipped_ says why).
  std::optional<Json> exchange(const SenderGroup& g, std::size_t query, std::size_t index);

  const ImpalaProfile& profile_;
  const ProfileImportOptions& options_;
  std::vector<QuerySpan> queries_;
  std::map<std::tuple<int, std::string, int>, SenderGroup> groups_;  // by (query, fragment, dst_id)
  std::multimap<std::pair<int, int>, const ProfileSection*> exchange_nodes_;  // by (query, id)
  std::vector<std::string> hosts_;
  std::map<std::string, std::string> host_names_;  // a daemon's address ("h1:22000") to its host's name
  int most_instances_ = 0;
  int host_count_ = 1;
  std::vector<std::pair<std::string, std::string>> notes_, assumptions_;
  std::vector<std::string> skipped_;
  std::vector<ImportedExchange> measured_;
  bool skips_local_ = true;  // the profile's Impala skips LZ4 for a channel to its own process
};

std::optional<Json> Importer::exchange(const SenderGroup& g, std::size_t query, std::size_t index) {
  const std::string at = fmt::format("/workload/queries/{}/exchanges/{}", query, index);
  const ProfileSection* any = !g.instances.empty() ? g.instances.front().second : g.aggregated ? g.aggregated : g.averaged;
  const std::string name = (g.fragment.empty() ? "" : g.fragment + " ") + any->title;
  Json x;
  x["id"] = fmt::format("{}x{}", g.fragment.empty() ? "" : g.fragment + "-", g.dst_id);

  // Totals: the instances' sum, or the averaged fragment's value times its instances.
  std::vector<const ProfileSection*> sections;
  int multiplier = 1;
  std::string basis;
  if (!g.instances.empty()) {
    for (const auto& inst : g.instances) sections.push_back(inst.second);
    basis = fmt::format("summed over its {} instances", sections.size());
  } else if (g.aggregated) {
    sections.push_back(g.aggregated);
    multiplier = static_cast<int>(g.listed_hosts.size());
    basis = fmt::format("the aggregated section's mean x its {} instances (the mean as Impala rounds it)", multiplier);
  } else {
    sections.push_back(g.averaged);
    const ProfileSection* fragment = enclosing(*g.averaged).instance_or_fragment;
    multiplier = fragment ? instances_of(*fragment) : 1;
    basis = fmt::format("the averaged fragment's value x {} instances", multiplier);
  }
  const SenderCounters counters = sender_counters(profile_, sections, multiplier);
  const auto& rows = counters.rows;
  if (!rows || *rows < 1) {
    // Nothing to model (a child query of COMPUTE STATS sends none), or nothing
    // to model it from: left out, and said so.
    skipped_.push_back(fmt::format("{}:{}: {}: {}; left out", profile_.file(), sections.front()->line, name,
                                   rows ? "sent no row" : "no RowsSent or RowsReturned counter"));
    return std::nullopt;
  }

  // Partitioning and receivers.
  const QuerySpan& span = queries_[static_cast<std::size_t>(g.query)];
  const auto kind = plan_kind(profile_, g.dst_id, span.first_line, span.end_line);
  const auto given = options_.kinds.find(g.dst_id);
  x["kind"] = kind ? kind->kind : given != options_.kinds.end() ? given->second : "hash";
  if (kind) {
    note(at + "/kind", "measured: the plan, " + kind->source, false);
  } else if (given != options_.kinds.end()) {
    note(at + "/kind", "given on the command line (--kind): exchange " + std::to_string(g.dst_id) + " is not in the profile's plan", false);
  } else {
    note(at + "/kind", fmt::format("assumed: exchange {} is not in the profile's plan (pass --kind {}=KIND)", g.dst_id, g.dst_id), true);
  }
  x["rows"] = static_cast<std::int64_t>(std::llround(*rows));
  note(at + "/rows", fmt::format("measured: {} {}, {}", name, counters.rows_counter, basis), false);

  std::vector<std::string> sender_hosts;
  for (const auto& inst : g.instances) sender_hosts.push_back(host_names_.at(inst.first));
  for (const auto& host : g.listed_hosts) sender_hosts.push_back(host_names_.at(host));
  x["senders"] = placement(sender_hosts);
  if (sender_hosts.empty()) {
    x["senders"] = Json{{"hosts", Json::array({hosts_.empty() ? "h0" : hosts_.front()})}, {"per_host", multiplier}};
    note(at + "/senders", fmt::format("assumed: the profile lists no instances of the sending fragment; its {} "
                                      "instance(s) placed on the first host",
                                      multiplier),
         true);
  } else {
    note(at + "/senders", "measured: the hosts of the sending fragment's instances", false);
  }
  std::vector<std::string> receiver_hosts;
  std::vector<std::pair<const ProfileSection*, int>> receiver_sections;  // each with the instances it stands for
  for (auto [it, end] = exchange_nodes_.equal_range({g.query, g.dst_id}); it != end; ++it) {
    const Enclosing e = enclosing(*it->second);
    if (!e.host.empty()) receiver_hosts.push_back(host_names_.at(e.host));
    for (const auto& host : e.listed_hosts) receiver_hosts.push_back(host_names_.at(host));
    if (!e.host.empty() || !e.listed_hosts.empty()) {
      receiver_sections.emplace_back(it->second, std::max<int>(1, static_cast<int>(e.listed_hosts.size())));
    }
  }
  const bool one_receiver = x["kind"] == "merge";
  if (!receiver_hosts.empty()) {
    x["receivers"] = placement(receiver_hosts);
    note(at + "/receivers", fmt::format("measured: the instances holding EXCHANGE_NODE (id={})", g.dst_id), false);
  } else {
    x["receivers"] = one_receiver ? Json{{"hosts", Json::array({hosts_.empty() ? "h0" : hosts_.front()})}, {"per_host", 1}}
                                  : Json{{"hosts", "all"}, {"per_host", 1}};
    note(at + "/receivers",
         fmt::format("assumed: the profile has no instance of EXCHANGE_NODE (id={}); {}", g.dst_id,
                     one_receiver ? "one receiver on the first host" : "one receiver instance on every host"),
         true);
  }
  const int channels = one_receiver ? 1
                       : receiver_hosts.empty() ? host_count_
                                                : static_cast<int>(receiver_hosts.size());

  // Row size and compression. A broadcast's counters count every channel's copy.
  ExchangeShape shape;
  shape.kind = x["kind"].get<std::string>();
  shape.rows = *rows;
  shape.channels = channels;
  shape.senders = sender_hosts.empty() ? multiplier : static_cast<int>(sender_hosts.size());
  shape.local_share = skips_local_ ? local_share(sender_hosts, receiver_hosts, shape.kind == "broadcast") : 0;
  for (const ShapeNote& n : import_row_and_compression(counters, shape, x)) note(at + n.pointer, n.text, n.assumed);
  measured_.push_back({fmt::format("q{}", g.query + 1), queries_[static_cast<std::size_t>(g.query)].id,
                       x["id"].get<std::string>(), shape.kind == "broadcast" ? channels : 1, shape.local_share, counters,
                       receiver_counters(profile_, receiver_sections)});

  // The producer's speed: rows per instance over the fragment's time outside the sender.
  const ProfileSection* first = sections.front();
  const ProfileSection* fragment = enclosing(*first).instance_or_fragment;
  std::optional<double> fragment_ns;
  if (fragment) fragment_ns = fragment->total_ns(profile_.file());
  const auto sender_ns = first->total_ns(profile_.file());
  const double per_instance = *rows / static_cast<double>(std::max<std::size_t>(1, sections.size()) * multiplier);
  const double outside_ns = fragment_ns.value_or(0) - sender_ns.value_or(0);
  if (fragment_ns && sender_ns && outside_ns > 0) {
    x["produce_rows_per_s"] = per_instance / (outside_ns * 1e-9);
    note(at + "/produce_rows_per_s",
         fmt::format("derived: rows per instance over the fragment's time outside the sender ({:.0f} rows in {:.3f} s "
                     "- {:.3f} s)",
                     per_instance, fragment_ns.value_or(0) * 1e-9, sender_ns.value_or(0) * 1e-9),
         false);
  } else {
    note(at, "assumed: no produce_rows_per_s (an unlimited producer): the fragment's and the sender's total times are "
             "missing or leave no time outside the sender",
         true);
  }
  note(at, "assumed: no consume_rows_per_s (an unlimited consumer): a profile does not separate the consumer's speed "
           "from its waiting",
       true);
  return x;
}

}  // namespace

ImportedScenario import_impala_profile(const ImpalaProfile& profile, const ProfileImportOptions& options) {
  return Importer(profile, options).run();
}

void name_costs_file(ImportedScenario& imported, const std::string& path) {
  auto doc = nlohmann::ordered_json::parse(imported.json);
  doc["costs"] = path;
  doc["notes"]["/costs"] = "derived from the profile's counters (import-profile --costs), the rest from its base";
  imported.json = doc.dump(2) + "\n";
}

}  // namespace exsim
