// A sweep run as `exsim sweep` runs it: every point of a shard loaded and
// checked before any runs, then simulated on N threads, each point's result
// lines written whole as it finishes, into OUT.partial renamed OUT once every
// point is in (or to standard output). Ctrl-C: the first stops taking new
// points (those running finish and are written); the second leaves at once.
#ifndef EXSIM_WORKFLOWS_SWEEP_RUNNER_H_
#define EXSIM_WORKFLOWS_SWEEP_RUNNER_H_

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "workflows/sweep_resume.h"
#include "models/results/sweep.h"
#include "sim/simulate.h"

namespace exsim::workflows {

// The scenario file's text with only the policies `names` (all when empty),
// so that a variation such as policies.*.buffer.flat reaches only those.
// UsageError for a name twice or not in the file.
std::string scenario_text_with_policies(const std::string& file, const std::vector<std::string>& names);

struct SweepOutcome {
  std::size_t completed = 0;  // points written
  bool interrupted = false;   // Ctrl-C: what finished is in `where`
  std::string failure;        // "" when every point ran and was written
  std::string where;          // OUT.partial while running, OUT once complete, or "standard output"
};

class SweepRunner {
 public:
  // Checks the base values (`set`, KEY=VALUE) against the variations, then the
  // scenario with them alone, then every point of `shard`: a bad value fails
  // the sweep now, not hours in, its error naming the point. Throws
  // UsageError or InputError.
  SweepRunner(std::string file, std::string text, std::vector<std::string> set, SweepPlan plan, Shard shard);

  std::size_t points() const { return points_.size(); }
  std::size_t policies() const { return policies_; }  // result lines a point writes
  const SweepPlan& plan() const { return plan_; }
  const std::vector<SweepPoint>& held_points() const { return points_; }

  // Keeps what an earlier run of this sweep finished (sweep_resume.h): run()
  // writes those lines first and simulates only the other points.
  void resume_from(SweepResume resume) { resume_ = std::move(resume); }
  // Every exchange simulated whole (SimulateOptions::exact).
  void simulate_exactly() { simulate_.exact = true; }
  std::size_t resumed_points() const { return resume_.done.size(); }

  // Simulates the points on `jobs` threads. Lines go to `output` + ".partial"
  // as points finish, renamed `output` when all are in (so `output` never
  // holds part of a sweep, and an earlier one is not lost to a sweep that
  // stops), or to standard output without one. `done` is called with each
  // point's label as it is written.
  SweepOutcome run(int jobs, const std::optional<std::string>& output,
                   const std::function<void(const std::string&)>& done);

 private:
  std::string file_, text_;
  std::vector<std::string> set_;
  SweepPlan plan_;
  std::vector<SweepPoint> points_;
  std::size_t policies_ = 0;
  SweepResume resume_;
  SimulateOptions simulate_;
};

}  // namespace exsim::workflows

#endif  // EXSIM_WORKFLOWS_SWEEP_RUNNER_H_
