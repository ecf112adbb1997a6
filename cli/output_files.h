// The files a command writes, declared before any work is done and written
// together at its end. Found only when writing, a bad output path had cost the
// work (a validation's real runs), left some outputs written and others not, or
// put results over the scenario they came from.
#ifndef EXSIM_CLI_OUTPUT_FILES_H_
#define EXSIM_CLI_OUTPUT_FILES_H_

#include <string>
#include <vector>

namespace exsim {
struct Scenario;
}

namespace exsim::cli {

// What an output holds, which its file name must not contradict.
enum class OutputFormat { kAny, kJson, kJsonLines, kHtml, kMarkdown };

class OutputFiles {
 public:
  // A file the command reads: no output may be it.
  void reads(const std::string& path);
  // A file the command writes, given by `flag` (named in errors); "-" is
  // standard output. A name whose ending says another format than `format`
  // (report.md for HTML, results.html for JSON) is refused at once, with
  // `hint` when given: a file named for one format and holding another would
  // mislead whoever opens it. Endings no format claims are taken as they are.
  void writes(const std::string& flag, const std::string& path, OutputFormat format = OutputFormat::kAny,
              const std::string& hint = "");
  // Whether an output goes to standard output: the command's own text then
  // goes to standard error, so that what it writes can be piped.
  bool to_stdout() const;

  // UsageError (exit 2) unless every output is a file that can be written
  // (its directory exists and takes a new file: one is made and removed), no
  // two outputs are one file (or both standard output), and no output is a
  // file the command reads.
  void check() const;

  // The content of the output given by `output` (its flag, or its path when a
  // flag gives several); write() writes every output given content, together:
  // all of them or, on a failure, none; then what goes to standard output.
  void put(const std::string& output, std::string content);
  void write() const;

 private:
  struct Output {
    std::string flag, path, content;
    bool ready = false;
  };
  std::vector<std::string> inputs_;
  std::vector<Output> outputs_;
};

// Declares the files a loaded scenario came from as read: its own and its costs profile's.
void reads_scenario(OutputFiles& outputs, const Scenario& scenario);

}  // namespace exsim::cli

#endif  // EXSIM_CLI_OUTPUT_FILES_H_
