// Impala query profiles in their text form (the "Query (id=...)" dump of the
// web UI, impala-shell's `profile` and the profile log): a tree of sections
// ("Averaged Fragment F01:(Total: 20s344ms, ...)", "KrpcDataStreamSender
// (dst_id=7):(Total: ...)"), each with counters ("- BytesSent: 3.63 GB
// (3902930720)") and info strings ("num instances: 1").
//
// Impala 4 and later may write the aggregated layout: one section for all of a
// fragment's instances ("KrpcDataStreamSender (dst_id=4) [12 instances]"), its
// counters the instances' "mean=152 (152) min=135 (135) max=166 (166)", of
// which the value parsers below read the mean.
//
// Counters are kept as text with their line: real profiles mix units and omit
// counters, so a value is parsed when it is asked for, and a malformed one is
// an error naming the file, the line and the counter, never a silent zero.
#ifndef EXSIM_MODELS_IMPALA_IMPALA_PROFILE_H_
#define EXSIM_MODELS_IMPALA_IMPALA_PROFILE_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace exsim {

// A summary statistic's mean and samples: "- RpcNetworkTime: (Avg: 98.322us ;
// Min: 33.531us ; Max: 299.588us ; Sum: 20.057ms ; Number of samples: 204)".
struct ProfileStat {
  double mean_ns = 0;
  double samples = 0;
};

struct ProfileEntry {
  std::string name;
  std::string value;  // as written, trimmed
  int line = 0;       // 1-based
};

struct ProfileSection {
  std::string title;  // the header without its "(Total: ...)" part, e.g. "KrpcDataStreamSender (dst_id=7)"
  std::string header;  // the whole header line, trimmed
  int line = 0;
  int indent = 0;
  ProfileSection* parent = nullptr;
  std::vector<ProfileEntry> counters;  // "- Name: value" lines, child counters included
  std::vector<ProfileEntry> infos;     // "name: value" lines
  std::vector<std::unique_ptr<ProfileSection>> children;

  const ProfileEntry* counter(std::string_view name) const;
  const ProfileEntry* info(std::string_view name) const;
  // The "(Total: X, ...)" of the header, in ns; nullopt when the header has none.
  std::optional<double> total_ns(const std::string& file) const;
};

class ImpalaProfile {
 public:
  // Parses `text`; `file` names it in messages. InputError when the text has
  // no section at all.
  static ImpalaProfile parse(std::string_view text, std::string file);

  const std::string& file() const { return file_; }
  const ProfileSection& root() const { return *root_; }
  const std::vector<std::string>& lines() const { return lines_; }
  // Every section, depth first, in file order.
  std::vector<const ProfileSection*> sections() const;

  // Values of counters, in the units Impala prints them in. Each throws a
  // InputError "FILE:LINE: counter NAME: expected ..., found '...'".
  double bytes(const ProfileEntry& entry) const;  // "3.63 GB (3902930720)", "405.23 KB", "96"
  // Of an aggregated counter, its `field` ("max", "min"; the mean above).
  double bytes(const ProfileEntry& entry, std::string_view field) const;
  double count(const ProfileEntry& entry) const;  // "402.00K (402000)", "2.18K", "0 (0)"
  double time_ns(const ProfileEntry& entry) const;  // "19s771ms", "494.783ms", "1h2m", "0.000ns"
  ProfileStat stat(const ProfileEntry& entry) const;  // a summary statistic of times

 private:
  std::string file_;
  std::vector<std::string> lines_;
  std::unique_ptr<ProfileSection> root_;
};

// The value parsers behind ImpalaProfile's, for a bare value; nullopt when malformed.
std::optional<double> parse_profile_bytes(std::string_view text);
std::optional<double> parse_profile_count(std::string_view text);
std::optional<double> parse_profile_time_ns(std::string_view text);
std::optional<ProfileStat> parse_profile_stat(std::string_view text);
// Of an aggregated counter's value, the text of `field` ("mean", "min", "max");
// the value itself when it is not an aggregated one.
std::string_view aggregate_field(std::string_view text, std::string_view field);

}  // namespace exsim

#endif  // EXSIM_MODELS_IMPALA_IMPALA_PROFILE_H_
