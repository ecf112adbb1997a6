#include "plots/gnuplot.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>

namespace exsim::report {
namespace {

std::string slurp(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// A private temporary directory, removed with everything in it.
class TempDir {
 public:
  TempDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "exsim-plot-XXXXXX").string();
    if (!mkdtemp(pattern.data())) throw std::runtime_error("cannot create a temporary directory for gnuplot");
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace

std::string render_svg(const std::string& name, const std::string& csv,
                       const std::vector<std::pair<std::string, double>>& variables) {
  const std::string_view script = gnuplot_script(name);
  if (script.empty()) throw std::runtime_error(fmt::format("no plot script plots/{}.gp", name));
  TempDir dir;
  const auto data = dir.path() / "data.csv", out = dir.path() / "out.svg", gp = dir.path() / "plot.gp",
             err = dir.path() / "stderr.txt";
  std::ofstream(data) << csv;
  std::ofstream(gp) << script;
  std::string assignments = fmt::format("data='{}'; out='{}'", data.string(), out.string());
  for (const auto& [var, value] : variables) assignments += fmt::format("; {}={:.17g}", var, value);

  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("cannot start gnuplot: fork failed");
  if (pid == 0) {
    const int fd = ::open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd >= 0) {
      dup2(fd, STDERR_FILENO);
      dup2(fd, STDOUT_FILENO);
    }
    execlp("gnuplot", "gnuplot", "-e", assignments.c_str(), gp.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 127) {
    throw std::runtime_error("gnuplot is not installed (scripts/install-deps installs it)");
  }
  std::string svg = slurp(out);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || svg.find("<svg") == std::string::npos) {
    throw std::runtime_error(fmt::format("gnuplot failed on plots/{}.gp: {}", name, slurp(err)));
  }
  // Inline SVG starts at its element: no XML declaration or doctype inside HTML.
  return prefix_ids(svg.substr(svg.find("<svg")), name + "-");
}

std::string prefix_ids(const std::string& svg, const std::string& prefix) {
  // gnuplot names its markers and canvas the same in every plot (gpPt0,
  // gnuplot_canvas...): one page of several plots would repeat each id, and
  // a reference would find another plot's element.
  std::vector<std::string> ids;
  for (std::size_t at = svg.find("id="); at != std::string::npos; at = svg.find("id=", at + 3)) {
    if (at > 0 && std::isalnum(static_cast<unsigned char>(svg[at - 1]))) continue;  // e.g. "grid="
    const char quote = at + 3 < svg.size() ? svg[at + 3] : '\0';
    if (quote != '\'' && quote != '"') continue;
    const std::size_t end = svg.find(quote, at + 4);
    if (end == std::string::npos) break;
    ids.push_back(svg.substr(at + 4, end - at - 4));
  }
  std::string out;
  out.reserve(svg.size() + 64 * ids.size());
  // One pass: an id's definition (id='X') and its references (#X), each ended
  // by a quote or a parenthesis, so that gpPt1 does not match within gpPt10.
  for (std::size_t i = 0; i < svg.size();) {
    bool replaced = false;
    if (svg.compare(i, 4, "id='") == 0 || svg.compare(i, 4, "id=\"") == 0 || svg[i] == '#') {
      const std::size_t start = svg[i] == '#' ? i + 1 : i + 4;
      for (const auto& id : ids) {
        const std::size_t end = start + id.size();
        if (end < svg.size() && svg.compare(start, id.size(), id) == 0 &&
            (svg[end] == '\'' || svg[end] == '"' || svg[end] == ')')) {
          out.append(svg, i, start - i);
          out += prefix;
          out += id;
          i = end;
          replaced = true;
          break;
        }
      }
    }
    if (!replaced) out += svg[i++];
  }
  return out;
}

}  // namespace exsim::report
