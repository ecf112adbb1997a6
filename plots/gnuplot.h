// Runs the gnuplot scripts of plots/ (built into exsim, so the binary needs no
// source tree) on a figure's CSV and returns the SVG, for inlining in a report.
#ifndef EXSIM_PLOTS_GNUPLOT_H_
#define EXSIM_PLOTS_GNUPLOT_H_

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace exsim::report {

// The text of plots/NAME.gp; empty when there is no such script.
std::string_view gnuplot_script(std::string_view name);

// SVG drawn by plots/NAME.gp from `csv`, with extra gnuplot variables
// (name, numeric value), its ids prefixed with "NAME-" so that a page can
// hold several. std::runtime_error with gnuplot's message when it fails or is
// not installed.
std::string render_svg(const std::string& name, const std::string& csv,
                       const std::vector<std::pair<std::string, double>>& variables = {});

// `svg` with every id it defines, and every reference to one (#id), prefixed.
std::string prefix_ids(const std::string& svg, const std::string& prefix);

}  // namespace exsim::report

#endif  // EXSIM_PLOTS_GNUPLOT_H_
