#include "models/impala/profile_log.h"

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <stdexcept>
#include <tuple>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <zlib.h>

#include "models/base/error.h"
#include "models/base/text_lines.h"
#include "models/impala/profile_json.h"
#include "models/impala/thrift_compact.h"

namespace exsim {
namespace {

using Json = nlohmann::ordered_json;

std::string base64_decode(std::string_view text) {
  std::array<int, 256> value{};
  value.fill(-1);
  const std::string_view alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  for (std::size_t i = 0; i < alphabet.size(); ++i) value[static_cast<unsigned char>(alphabet[i])] = static_cast<int>(i);
  std::string out;
  out.reserve(text.size() / 4 * 3);
  std::uint32_t bits = 0;
  int count = 0;
  for (char c : text) {
    if (c == '=') break;
    const int v = value[static_cast<unsigned char>(c)];
    if (v < 0) throw Undecodable(fmt::format("expected base64, found the character '{}'", c));
    bits = (bits << 6) | static_cast<std::uint32_t>(v);
    if (++count == 4) {
      out.push_back(static_cast<char>(bits >> 16));
      out.push_back(static_cast<char>(bits >> 8));
      out.push_back(static_cast<char>(bits));
      bits = 0;
      count = 0;
    }
  }
  if (count == 3) out.append({static_cast<char>(bits >> 10), static_cast<char>(bits >> 2)});
  if (count == 2) out.push_back(static_cast<char>(bits >> 4));
  return out;
}

std::string inflate_all(const std::string& compressed) {
  z_stream stream{};
  if (inflateInit(&stream) != Z_OK) throw Undecodable("zlib could not start");
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(compressed.data()));
  stream.avail_in = static_cast<uInt>(compressed.size());
  std::string out;
  std::array<char, 64 * 1024> chunk{};
  int status = Z_OK;
  while (status == Z_OK) {
    stream.next_out = reinterpret_cast<Bytef*>(chunk.data());
    stream.avail_out = static_cast<uInt>(chunk.size());
    status = inflate(&stream, Z_NO_FLUSH);
    out.append(chunk.data(), chunk.size() - stream.avail_out);
  }
  inflateEnd(&stream);
  if (status != Z_STREAM_END) throw Undecodable("expected zlib-compressed data, which does not inflate");
  return out;
}

// Metrics.thrift's TUnit, by value, as the JSON form names them.
std::string unit_name(std::int64_t unit) {
  static const std::array<const char*, 12> kNames = {"UNIT", "UNIT_PER_SECOND", "CPU_TICKS", "BYTES",
                                                      "BYTES_PER_SECOND", "TIME_NS", "DOUBLE_VALUE", "NONE",
                                                      "TIME_MS", "TIME_S", "TIME_US", "BASIS_POINTS"};
  return unit >= 0 && unit < static_cast<std::int64_t>(kNames.size()) ? kNames[static_cast<std::size_t>(unit)] : "NONE";
}

// TCounter {1: name, 2: unit, 3: value}.
Json read_counter(CompactReader& in) {
  Json c = {{"counter_name", ""}, {"value", 0}, {"unit", "NONE"}};
  each_field(in, [&](int id, CompactReader::Type) {
    switch (id) {
      case 1: c["counter_name"] = in.string(); return true;
      case 2: c["unit"] = unit_name(in.integer()); return true;
      case 3: c["value"] = in.integer(); return true;
      default: return false;
    }
  });
  return c;
}

// TSummaryStatsCounter {1: name, 2: unit, 3: sum, 4: total_num_values, 5: min_value, 6: max_value}.
Json read_summary(CompactReader& in) {
  std::string name, unit = "NONE";
  std::int64_t sum = 0, n = 0, least = 0, most = 0;
  each_field(in, [&](int id, CompactReader::Type) {
    switch (id) {
      case 1: name = in.string(); return true;
      case 2: unit = unit_name(in.integer()); return true;
      case 3: sum = in.integer(); return true;
      case 4: n = in.integer(); return true;
      case 5: least = in.integer(); return true;
      case 6: most = in.integer(); return true;
      default: return false;
    }
  });
  return {{"counter_name", name}, {"unit", unit}, {"avg", n > 0 ? sum / n : 0}, {"min", least},
          {"max", most}, {"num_of_samples", n}};
}

// The mean over the instances that have a value.
std::int64_t mean_of(const std::vector<std::int64_t>& values, const std::vector<std::int64_t>& has) {
  std::int64_t sum = 0, n = 0;
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i < has.size() && has[i] == 0) continue;
    sum += values[i];
    ++n;
  }
  return n > 0 ? sum / n : 0;
}

// A TAggCounter or TAggSummaryStatsCounter: 1 name, 2 unit, the other fields
// lists by instance, by field id.
struct AggregatedCounter {
  std::string name, unit = "NONE";
  std::map<int, std::vector<std::int64_t>> lists;
  const std::vector<std::int64_t>& list(int id) { return lists[id]; }  // empty when absent
};

AggregatedCounter read_aggregated_counter(CompactReader& in) {
  AggregatedCounter c;
  each_field(in, [&](int id, CompactReader::Type type) {
    if (id == 1) c.name = in.string();
    else if (id == 2) c.unit = unit_name(in.integer());
    else if (type == CompactReader::kList) c.lists[id] = in.numbers();
    else return false;
    return true;
  });
  return c;
}

// TAggregatedRuntimeProfileNode {1: num_instances, 2: input_profiles, 3:
// counters (TAggCounter: 1 name, 2 unit, 3 has_value, 4 values), 5: summary
// statistics (TAggSummaryStatsCounter: 1 name, 2 unit, 3 has_value, 4 sum,
// 5 total_num_values, 6 min_value, 7 max_value)}: one node for all of a
// fragment's instances, rendered as the aggregated text layout does, its
// counters their instances' means and its instances listed with their hosts.
void read_aggregated(CompactReader& in, Json& node) {
  std::int64_t instances = 0;
  Json listed = Json::array();
  each_field(in, [&](int id, CompactReader::Type) {
    switch (id) {
      case 1: instances = in.integer(); return true;
      case 2: {
        const auto [element, size] = in.list();
        for (std::uint64_t i = 0; i < size; ++i) {
          // "Instance ab:cd (host=h:p)", written as the text form's "[i] Instance ab:cd (host=h:p)".
          const std::string name = in.string();
          const std::size_t colon = name.find(':');
          listed.push_back({{"key", fmt::format("[{}] {}", i, name.substr(0, colon))},
                            {"value", colon == std::string::npos ? "" : name.substr(colon + 1)}});
        }
        return true;
      }
      case 3:  // TAggCounter: 3 has_value, 4 values
        each_struct(in, [&] {
          AggregatedCounter c = read_aggregated_counter(in);
          node["counters"].push_back({{"counter_name", c.name}, {"value", mean_of(c.list(4), c.list(3))}, {"unit", c.unit}});
        });
        return true;
      case 5:  // TAggSummaryStatsCounter: 3 has_value, 4 sum, 5 total_num_values, 6 min_value, 7 max_value
        each_struct(in, [&] {
          AggregatedCounter c = read_aggregated_counter(in);
          const std::string& name = c.name;
          const std::string& unit = c.unit;
          const auto& has = c.list(3);
          const auto& sum = c.list(4);
          const auto& n = c.list(5);
          const auto& least = c.list(6);
          const auto& most = c.list(7);
          // Over every instance's samples.
          std::int64_t all_sum = 0, all_n = 0, lo = 0, hi = 0;
          bool first = true;
          for (std::size_t i = 0; i < sum.size() && i < n.size(); ++i) {
            if (i < has.size() && has[i] == 0) continue;
            all_sum += sum[i];
            all_n += n[i];
            if (i < least.size() && (first || least[i] < lo)) lo = least[i];
            if (i < most.size() && (first || most[i] > hi)) hi = most[i];
            first = false;
          }
          node["summary_stats_counters"].push_back({{"counter_name", name}, {"unit", unit},
                                                    {"avg", all_n > 0 ? all_sum / all_n : 0}, {"min", lo},
                                                    {"max", hi}, {"num_of_samples", all_n}});
        });
        return true;
      default: return false;
    }
  });
  node["profile_name"] = fmt::format("{} [{} instance{}]", node["profile_name"].get<std::string>(), instances,
                                     instances == 1 ? "" : "s");
  if (!listed.empty()) {
    node["child_profiles"].push_back({{"profile_name", "Instances"}, {"num_children", 0}, {"info_strings", listed}});
  }
}

// TRuntimeProfileNode: the fields the JSON form has, and its children's count.
Json read_node(CompactReader& in, std::int64_t& children) {
  Json node = {{"profile_name", ""}, {"counters", Json::array()}, {"summary_stats_counters", Json::array()},
               {"child_profiles", Json::array()}};
  std::map<std::string, std::string> infos;
  std::vector<std::string> order;
  each_field(in, [&](int id, CompactReader::Type) {
    switch (id) {
      case 1: node["profile_name"] = in.string(); return true;
      case 2: children = in.integer(); return true;
      case 3: each_struct(in, [&] { node["counters"].push_back(read_counter(in)); }); return true;
      case 6: {
        const auto [size, key, value] = in.map();
        for (std::uint64_t i = 0; i < size; ++i) {
          std::string k = in.string();
          infos[k] = in.string();
        }
        return true;
      }
      case 7: {
        const auto [element, size] = in.list();
        for (std::uint64_t i = 0; i < size; ++i) order.push_back(in.string());
        return true;
      }
      case 11: each_struct(in, [&] { node["summary_stats_counters"].push_back(read_summary(in)); }); return true;
      case 13: read_aggregated(in, node); return true;
      default: return false;
    }
  });
  Json info_strings = Json::array();
  for (const std::string& key : order) {
    if (const auto it = infos.find(key); it != infos.end()) info_strings.push_back({{"key", key}, {"value", it->second}});
  }
  node["num_children"] = children;
  node["info_strings"] = info_strings;
  return node;
}

// TRuntimeProfileTree {1: nodes, in pre-order, each with its children's count}.
Json read_tree(CompactReader& in) {
  std::vector<Json> nodes;
  std::vector<std::int64_t> children;
  each_field(in, [&](int id, CompactReader::Type) {
    if (id != 1) return false;
    each_struct(in, [&] {
      std::int64_t n = 0;
      nodes.push_back(read_node(in, n));
      children.push_back(n);
    });
    return true;
  });
  if (nodes.empty()) throw Undecodable("expected a profile tree with nodes, found none");
  // Pre-order: a node, then each of its children's subtrees.
  std::size_t next = 0;
  const std::function<Json()> subtree = [&]() -> Json {
    if (next >= nodes.size()) throw Undecodable("a node counts more children than the tree holds");
    const std::size_t at = next++;
    Json node = std::move(nodes[at]);
    for (std::int64_t c = 0; c < children[at]; ++c) node["child_profiles"].push_back(subtree());
    return node;
  };
  return subtree();
}

}  // namespace

bool looks_like_profile_log(std::string_view text) {
  const std::string_view line = text.substr(0, text.find('\n'));
  const std::size_t first = line.find(' ');
  const std::size_t second = first == std::string_view::npos ? first : line.find(' ', first + 1);
  if (first == 0 || second == std::string_view::npos) return false;
  for (std::size_t i = 0; i < first; ++i) {
    if (line[i] < '0' || line[i] > '9') return false;
  }
  return line.substr(first + 1, second - first - 1).find(':') != std::string_view::npos && line.size() > second + 1;
}

std::string profile_log_to_json(std::string_view text, const std::string& file) {
  Json profiles = Json::array();
  std::vector<std::string> errors;
  for_each_line(text, [&](std::string_view line, int number) {
    if (line.empty()) return;
    const std::size_t last = line.rfind(' ');
    try {
      if (last == std::string_view::npos) throw Undecodable("expected 'MILLISECONDS QUERY_ID PROFILE'");
      const std::string tree = inflate_all(base64_decode(line.substr(last + 1)));
      CompactReader in(tree);
      profiles.push_back({{"contents", read_tree(in)}});
    } catch (const Undecodable& e) {
      errors.push_back(fmt::format("{}:{}: {}", file, number, e.what()));
    }
  });
  if (!errors.empty()) throw InputError(errors);
  return profiles.dump();
}

std::string profile_as_text(std::string_view text, const std::string& file) {
  if (looks_like_profile_log(text)) return render_json_profile(profile_log_to_json(text, file), file);
  if (looks_like_json(text)) return render_json_profile(text, file);
  return std::string(text);
}

}  // namespace exsim
