// Progress of a long command on standard error: a bar with an ETA redrawn in
// place on a terminal, one plain line per finished item otherwise (logs, CI).
#ifndef EXSIM_WORKFLOWS_PROGRESS_H_
#define EXSIM_WORKFLOWS_PROGRESS_H_

#include <chrono>
#include <cstddef>
#include <mutex>
#include <string>

namespace exsim::workflows {

class Progress {
 public:
  // `what` names the items ("points"); `total` of them will be reported done.
  Progress(std::string what, std::size_t total);
  // One item finished, described by `label` (plain-line mode prints it).
  void done(const std::string& label);
  // The item under way is `fraction` done: redraws the bar on a terminal once
  // a second has passed (short runs show nothing); prints nothing otherwise.
  void partial(double fraction);
  // One item finished, drawn only as partial() would draw it.
  void advance();
  // Ends the bar's line on a terminal; prints nothing otherwise.
  void finish();
  std::size_t completed() const;

 private:
  static std::string clock(double seconds);  // "1:05", "2:03:04"
  // The bar at `items` of total_ done (a fraction for the one under way). REQUIRES: mutex_ held.
  void draw(double items, double elapsed);

  std::string what_;
  std::size_t total_;
  std::size_t done_ = 0;
  bool terminal_;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point start_;
  mutable std::mutex mutex_;
};

}  // namespace exsim::workflows

#endif  // EXSIM_WORKFLOWS_PROGRESS_H_
