// The data behind each plot of a report, as the CSV files `exsim report --csv`
// writes and the gnuplot scripts in plots/ read (by the report, or by hand).
#ifndef EXSIM_PLOTS_FIGURES_H_
#define EXSIM_PLOTS_FIGURES_H_

#include <string>
#include <utility>
#include <vector>

#include "models/results/report_input.h"

namespace exsim::report {

struct Figure {
  std::string name;    // the script plots/NAME.gp and the data NAME.csv
  std::string title;   // a heading for the report
  std::string csv;     // empty when the input has nothing to draw here
  // What the script is told besides the data (gnuplot -e NAME=VALUE): the
  // frame its labels were placed in, how often a tick is named...
  std::vector<std::pair<std::string, double>> variables = {};
};

// Every figure of the report, in the order it shows them; `budget_bytes` the
// memory budget drawn (0: none).
std::vector<Figure> figures(const ReportInput& input, double budget_bytes = 0);

// A CSV field: quoted (gnuplot reads quoted strings as one column) when it has a space or comma.
std::string csv_field(const std::string& text);

}  // namespace exsim::report

#endif  // EXSIM_PLOTS_FIGURES_H_
