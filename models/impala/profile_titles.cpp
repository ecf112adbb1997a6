#include "models/impala/profile_titles.h"

#include <algorithm>
#include <charconv>
#include <regex>

#include <fmt/format.h>

#include "models/base/error.h"

namespace exsim {
namespace {

// Impala 4 and later follow an aggregated section's title with " [12 instances]".
const std::regex kSenderTitle(R"(^(Krpc)?DataStreamSender \(dst_id=(\d+)\)( \[\d+ instances?\])?$)");
// A sender-like title that kSenderTitle does not take.
const std::regex kAnySenderTitle(R"(^(Krpc)?DataStreamSender\b)");
const std::regex kFragmentTitle(R"(^(Averaged |Coordinator )?Fragment (F\d+)( \[(\d+) instances?\])?$)");
const std::regex kInstanceTitle(R"(^Instance .*\(host=([^:)]+)(:\d+)?\)$)");
const std::regex kExchangeNodeTitle(R"(^EXCHANGE_NODE \(id=(\d+)\)( \[\d+ instances?\])?$)");
// An aggregated fragment's "Instances:" list: "[0] Instance 5644dc:11475918 (host=h1:27000)".
const std::regex kListedInstance(R"(^\[\d+\] Instance .*\(host=([^:)]+)(:\d+)?\)$)");
const std::regex kQueryTitle(R"(^Query \(id=([0-9a-f:]+)\)$)");
const std::regex kPlanExchange(R"((\d+):(MERGING-)?EXCHANGE\s*\[([A-Z]+))");

// A plan node id from the digits a title or plan line holds.
int plan_node_id(const std::string& digits, const std::string& file, std::size_t line, const char* what) {
  int id = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), id);
  if (ec != std::errc() || end != digits.data() + digits.size()) {
    throw InputError({fmt::format("{}:{}: {}={}: expected a plan node id below 2^31", file, line, what, digits)});
  }
  return id;
}

}  // namespace

Enclosing enclosing(const ProfileSection& section) {
  Enclosing e;
  std::smatch m;
  for (const ProfileSection* s = section.parent; s != nullptr; s = s->parent) {
    if (e.host.empty() && std::regex_match(s->title, m, kInstanceTitle)) {
      e.host = m[1].str() + m[2].str();
      e.instance_or_fragment = s;
    } else if (std::regex_match(s->title, m, kFragmentTitle)) {
      e.fragment = m[2];
      e.averaged = m[1] == "Averaged ";
      if (!e.instance_or_fragment) e.instance_or_fragment = s;
      if (e.host.empty() && !e.averaged) e.listed_hosts = listed_instance_hosts(*s);
      break;
    }
  }
  return e;
}

std::vector<std::string> listed_instance_hosts(const ProfileSection& fragment) {
  std::vector<std::string> hosts;
  std::smatch m;
  for (const auto& child : fragment.children) {
    if (child->title != "Instances") continue;
    for (const ProfileEntry& line : child->infos) {
      // The info's name and value split the instance id at its colon; whole again here.
      const std::string whole = line.name + ":" + line.value;
      if (std::regex_match(whole, m, kListedInstance)) hosts.push_back(m[1].str() + m[2].str());
    }
  }
  return hosts;
}

std::optional<int> sender_dst_id(const ImpalaProfile& profile, const ProfileSection& section) {
  std::smatch m;
  if (std::regex_match(section.title, m, kSenderTitle)) return plan_node_id(m[2], profile.file(), section.line, "dst_id");
  if (std::regex_search(section.title, kAnySenderTitle)) {
    throw InputError({fmt::format("{}:{}: {}: expected a sender section titled 'KrpcDataStreamSender (dst_id=N)'",
                                     profile.file(), section.line, section.title)});
  }
  return std::nullopt;
}

std::optional<int> exchange_node_id(const ImpalaProfile& profile, const ProfileSection& section) {
  std::smatch m;
  if (!std::regex_match(section.title, m, kExchangeNodeTitle)) return std::nullopt;
  return plan_node_id(m[1], profile.file(), section.line, "id");
}

std::optional<std::string> instance_host(const ProfileSection& section) {
  std::smatch m;
  if (!std::regex_match(section.title, m, kInstanceTitle)) return std::nullopt;
  return m[1].str() + m[2].str();
}

std::vector<std::string> daemon_names(const std::vector<std::string>& addresses) {
  const auto host_of = [](const std::string& a) { return a.substr(0, a.find(':')); };
  std::vector<std::string> names;
  for (const std::string& a : addresses) {
    const bool shared = std::any_of(addresses.begin(), addresses.end(),
                                    [&](const std::string& b) { return b != a && host_of(b) == host_of(a); });
    std::string name = shared ? a : host_of(a);
    std::replace(name.begin(), name.end(), ':', '-');
    names.push_back(name);
  }
  return names;
}

bool is_averaged_fragment(const ProfileSection& section) {
  std::smatch m;
  return std::regex_match(section.title, m, kFragmentTitle) && m[1] == "Averaged ";
}

std::optional<std::string> query_id(const ProfileSection& section) {
  std::smatch m;
  if (!std::regex_match(section.title, m, kQueryTitle)) return std::nullopt;
  return m[1].str();
}

std::optional<PlanKind> plan_kind(const ImpalaProfile& profile, int id, int first_line, int end_line) {
  std::smatch m;
  const std::size_t end = end_line > 0 ? std::min(profile.lines().size(), static_cast<std::size_t>(end_line - 1))
                                       : profile.lines().size();
  for (std::size_t i = static_cast<std::size_t>(std::max(1, first_line) - 1); i < end; ++i) {
    const std::string& line = profile.lines()[i];
    if (!std::regex_search(line, m, kPlanExchange) || plan_node_id(m[1], profile.file(), i + 1, "exchange") != id) {
      continue;
    }
    const std::string partition = m[3];
    const std::string where = fmt::format("line {}: {}", i + 1, m.str(0) + "]");
    if (partition == "BROADCAST") return PlanKind{"broadcast", where};
    if (partition == "HASH") return PlanKind{"hash", where};
    if (partition == "RANDOM") return PlanKind{"random", where};
    if (partition == "UNPARTITIONED") return PlanKind{m[2].matched ? "merge" : "random", where};
    return PlanKind{"hash", where + " (modelled as hash)"};
  }
  return std::nullopt;
}

std::string impala_version(const ImpalaProfile& profile) {
  for (const ProfileSection* s : profile.sections()) {
    if (const ProfileEntry* v = s->info("Impala Version")) return v->value;
  }
  return "";
}

std::optional<bool> skips_local_compression(const std::string& version) {
  std::smatch m;
  static const std::regex kVersion(R"(version (\d+)\.(\d+))");
  if (!std::regex_search(version, m, kVersion)) return std::nullopt;
  const int major = std::stoi(m[1]), minor = std::stoi(m[2]);
  return major > 4 || (major == 4 && minor >= 3);
}

const ProfileEntry* first_counter(const ProfileSection& section, std::initializer_list<std::string_view> names) {
  for (auto name : names) {
    if (const ProfileEntry* e = section.counter(name)) return e;
  }
  return nullptr;
}

}  // namespace exsim
