#include "cli/output_files.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "models/base/error.h"
#include "models/results/results.h"
#include "models/scenario/scenario.h"

namespace exsim::cli {
namespace {

namespace fs = std::filesystem;

constexpr const char* kStdout = "-";

// Whether two paths name one file: the same file if both exist, else the same
// path once links and dots are resolved.
bool same_file(const std::string& a, const std::string& b) {
  std::error_code ec;
  if (fs::exists(a, ec) && fs::exists(b, ec)) return fs::equivalent(a, b, ec);
  return fs::weakly_canonical(a, ec) == fs::weakly_canonical(b, ec);
}

void check_one(const std::string& flag, const std::string& path) {
  if (path.empty()) throw UsageError(fmt::format("{}: expected a file path, got an empty one", flag));
  std::error_code ec;
  const fs::path target = fs::weakly_canonical(path, ec);  // through a link, to the file it names
  if (fs::is_directory(target, ec)) throw UsageError(fmt::format("{} {}: is a directory, not a file", flag, path));
  const fs::path parent = target.parent_path();
  if (!parent.empty() && !fs::is_directory(parent, ec)) {
    throw UsageError(fmt::format("{} {}: directory {} does not exist", flag, path, parent.string()));
  }
  if (fs::exists(target, ec) && !fs::is_regular_file(target, ec)) return;  // a pipe or device: written as it is
  // The directory takes a new file: make one beside the target and remove it.
  const fs::path probe = fs::path(target) += fmt::format(".{}.probe", ::getpid());
  const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0600);
  if (fd < 0) throw UsageError(fmt::format("{} {}: cannot write there: {}", flag, path, std::strerror(errno)));
  ::close(fd);
  ::unlink(probe.c_str());
}

// The formats file endings claim, and the endings each format takes.
struct FormatName {
  OutputFormat format;
  const char* name;
  std::vector<std::string> endings;
};
const std::vector<FormatName>& format_names() {
  static const std::vector<FormatName> names = {
      {OutputFormat::kJson, "JSON", {".json"}},
      {OutputFormat::kJsonLines, "JSON Lines", {".jsonl", ".ndjson", ".json"}},
      {OutputFormat::kHtml, "HTML", {".html", ".htm"}},
      {OutputFormat::kMarkdown, "Markdown", {".md", ".markdown"}},
  };
  return names;
}

void check_format(const std::string& flag, const std::string& path, OutputFormat format, const std::string& hint) {
  if (format == OutputFormat::kAny || path == kStdout) return;
  std::string ending = fs::path(path).extension().string();
  for (char& c : ending) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const auto takes = [&](const FormatName& f) {
    return std::find(f.endings.begin(), f.endings.end(), ending) != f.endings.end();
  };
  const auto& names = format_names();
  const auto wanted = std::find_if(names.begin(), names.end(), [&](const FormatName& f) { return f.format == format; });
  if (takes(*wanted)) return;
  for (const FormatName& other : names) {
    if (!takes(other)) continue;
    throw UsageError(fmt::format("{} {}: writes {}, but the name says {}; name it {}{}", flag, path, wanted->name,
                                 other.name, wanted->endings.front(), hint.empty() ? "" : fmt::format(" ({})", hint)));
  }
}

}  // namespace

void OutputFiles::reads(const std::string& path) { inputs_.push_back(path); }

void OutputFiles::writes(const std::string& flag, const std::string& path, OutputFormat format,
                         const std::string& hint) {
  check_format(flag, path, format, hint);
  outputs_.push_back({flag, path, {}, false});
}

bool OutputFiles::to_stdout() const {
  for (const auto& out : outputs_) {
    if (out.path == kStdout) return true;
  }
  return false;
}

void OutputFiles::check() const {
  for (std::size_t i = 0; i < outputs_.size(); ++i) {
    const Output& out = outputs_[i];
    if (out.path == kStdout) {
      for (std::size_t j = 0; j < i; ++j) {
        if (outputs_[j].path == kStdout) {
          throw UsageError(fmt::format("{} -: {} goes to standard output already", out.flag, outputs_[j].flag));
        }
      }
      continue;
    }
    check_one(out.flag, out.path);
    for (std::size_t j = 0; j < i; ++j) {
      if (outputs_[j].path != kStdout && same_file(out.path, outputs_[j].path)) {
        throw UsageError(fmt::format("{} {}: is also the file of {}", out.flag, out.path, outputs_[j].flag));
      }
    }
    for (const auto& in : inputs_) {
      if (same_file(out.path, in)) {
        throw UsageError(fmt::format("{} {}: is a file this command reads{}: it would be overwritten", out.flag,
                                     out.path, in == out.path ? "" : fmt::format(" ({})", in)));
      }
    }
  }
}

void OutputFiles::put(const std::string& output, std::string content) {
  for (auto& out : outputs_) {
    if (out.flag == output || out.path == output) {
      out.content = std::move(content);
      out.ready = true;
      return;
    }
  }
  throw std::logic_error("internal error: no output " + output);
}

void reads_scenario(OutputFiles& outputs, const Scenario& scenario) {
  outputs.reads(scenario.file);
  std::error_code ec;
  if (std::filesystem::is_regular_file(scenario.costs.source, ec)) outputs.reads(scenario.costs.source);
}

void OutputFiles::write() const {
  std::vector<std::pair<std::string, std::string>> files;
  for (const auto& out : outputs_) {
    if (out.ready && out.path != kStdout) files.emplace_back(out.path, out.content);
  }
  write_files_atomically(files);
  for (const auto& out : outputs_) {
    if (out.ready && out.path == kStdout) {
      std::fwrite(out.content.data(), 1, out.content.size(), stdout);
      std::fflush(stdout);
    }
  }
}

}  // namespace exsim::cli
